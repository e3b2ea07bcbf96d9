// The admin route table (/__sim, routes.ts with the control-plane and platform-API admin rows),
// in process: served on every endpoint; advanceClock moves the clock (a negative ms refused by
// the schema); resetSimulator restores the same ids for the same seed; resetRateLimits empties
// the counters and keeps the data; failRevision validates its status enum and reaches the
// revision; authorizeOAuthFlow needs auth_id and completes a flow of either region; without the
// admin path, /__sim answers 404.
import { expect, test } from '@playwright/test';
import type { Endpoint } from '../../specs/contract.ts';
import type { AuthenticateResponse } from '../../specs/types/platform-api.ts';
import type { Deployment, Integration, Repository, Revision } from '../../specs/types/control-plane.ts';
import type { ClockReading, SimulatorInfo } from '../../specs/types/simulator-admin.ts';
import { Simulator } from '../simulator.ts';

const ENDPOINTS: Endpoint[] = ['agent-server', 'control-plane', 'platform-api', 'platform-api-eu'];
const sims: Simulator[] = [];
// A deployment created starts its own agent server, which close() stops.
test.afterAll(() => Promise.all(sims.map((sim) => sim.close())));

function admin(options: { admin?: boolean; clock?: 'real' | 'virtual' } = {}) {
  const sim = new Simulator({ seed: 'admin-routes', quiet: true, ...options });
  sims.push(sim);
  const keyOf = (role: string) => sim.info().credentials.api_keys.find((k) => k.role === role)!.key;
  const call = (method: string, path: string, body?: unknown, { endpoint = 'agent-server' as Endpoint, key = keyOf('primary') } = {}) =>
    sim.request(endpoint, path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-api-key': key },
    });
  const json = async <T>(method: string, path: string, body?: unknown, options?: { endpoint?: Endpoint; key?: string }): Promise<T> => {
    const res = await call(method, path, body, options);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  return { sim, call, json, keyOf };
}

test('info and clock are served on every endpoint', async () => {
  const { sim, json } = admin();
  for (const endpoint of ENDPOINTS) {
    expect(await json('GET', '/__sim/info', undefined, { endpoint }), endpoint).toEqual(sim.info());
    expect(await json('GET', '/__sim/clock', undefined, { endpoint }), endpoint).toEqual({ now: '2026-01-01T00:00:00.000Z' });
  }
});

test('advanceClock moves the clock by ms or seconds; a negative ms or an empty body is refused with 422', async () => {
  const { call, json } = admin();
  expect(await json('POST', '/__sim/clock/advance', { ms: 1500 })).toEqual({ now: '2026-01-01T00:00:01.500Z' });
  expect(await json('POST', '/__sim/clock/advance', { seconds: 2 }, { endpoint: 'control-plane' })).toEqual({ now: '2026-01-01T00:00:03.500Z' });
  expect((await call('POST', '/__sim/clock/advance', { ms: -1 })).status).toBe(422);
  expect((await call('POST', '/__sim/clock/advance', {})).status).toBe(422);
  expect(await json<ClockReading>('GET', '/__sim/clock', undefined, { endpoint: 'platform-api' })).toEqual({ now: '2026-01-01T00:00:03.500Z' });
});

test('resetSimulator restores the same ids for the same seed, and takes a new seed', async () => {
  const { json } = admin();
  const thread = () => json<{ thread_id: string; created_at: string }>('POST', '/threads', {});
  const first = await thread();
  await json('POST', '/__sim/clock/advance', { seconds: 60 });
  await json('POST', '/__sim/reset', {});
  expect(await thread()).toEqual(first);

  const reseeded = await json<SimulatorInfo>('POST', '/__sim/reset', { seed: 'other' });
  expect(reseeded.seed).toBe('other');
  expect((await thread()).thread_id).not.toBe(first.thread_id);
  await json('POST', '/__sim/reset', { seed: 'admin-routes' });
  expect(await thread()).toEqual(first);
});

test('resetSimulator sets the time scale of a real clock, which partitions follow; a virtual clock has none (409)', async () => {
  const { sim, call, json } = admin({ clock: 'real' });
  const reset = await json<SimulatorInfo>('POST', '/__sim/reset', { time_scale: 5 });
  expect(reset.clock).toEqual({ kind: 'real', time_scale: 5 });
  expect(sim.info().clock).toEqual({ kind: 'real', time_scale: 5 });
  const partition = await sim.request('agent-server', '/__sim/info', { headers: { 'x-apc-partition': 'p1' } });
  expect(((await partition.json()) as SimulatorInfo).clock).toEqual({ kind: 'real', time_scale: 5 });
  expect((await call('POST', '/__sim/reset', { time_scale: 0 })).status).toBe(422);

  const virtual = admin();
  const refused = await virtual.call('POST', '/__sim/reset', { time_scale: 5 });
  expect([refused.status, await refused.text()]).toEqual([409, expect.stringContaining('virtual clock')]);
});

test('resetRateLimits empties the counters and keeps time and data', async () => {
  const { call, json } = admin();
  const RUN = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
  await call('POST', '/runs', { id: RUN, name: 'r', run_type: 'chain', start_time: '2026-01-01T00:00:00Z' }, { endpoint: 'platform-api' });
  const query = () => call('POST', '/runs/query', {}, { endpoint: 'platform-api' });
  let refused: Response | undefined;
  for (let i = 0; i < 100 && !refused; i++) {
    const res = await query();
    if (res.status === 429) refused = res;
  }
  expect(refused?.headers.get('retry-after')).toBeTruthy();
  expect(await json('POST', '/__sim/rate-limits/reset')).toEqual({ reset: true, now: '2026-01-01T00:00:00.000Z' });
  const after = await query();
  expect(after.status).toBe(200);
  expect(((await after.json()) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual([RUN]);
});

test('failRevision validates its status enum and makes the revision fail', async () => {
  const { call, json } = admin();
  const on = { endpoint: 'control-plane' as Endpoint };
  const [integration] = await json<Integration[]>('GET', '/v1/integrations/sourcehost/install', undefined, on);
  const [repo] = await json<Repository[]>('GET', `/v1/integrations/sourcehost/${integration.id}/repos`, undefined, on);
  const create = { integration_id: integration.id, source_config: { repo_url: repo.url }, source_revision_config: { repo_ref: repo.default_branch } };
  const deployment = await json<Deployment>('POST', '/v2/deployments', create, on);
  const fail = `/__sim/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}/fail`;

  expect((await call('POST', fail, { status: 'EXPLODED' })).status).toBe(422);
  expect((await call('POST', `/__sim/deployments/${deployment.id}/revisions/${deployment.id}/fail`, { status: 'DEPLOY_FAILED' })).status).toBe(404);
  expect((await json<Revision>('POST', fail, { status: 'DEPLOY_FAILED' })).id).toBe(deployment.latest_revision_id);
  await json('POST', '/__sim/clock/advance', { seconds: 3600 });
  const revision = await json<Revision>('GET', `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`, undefined, on);
  expect(revision.status).toBe('DEPLOY_FAILED');

  // Without a body, the revision fails its build.
  const other = await json<Deployment>('POST', '/v2/deployments', create, on);
  await json('POST', `/__sim/deployments/${other.id}/revisions/${other.latest_revision_id}/fail`);
  await json('POST', '/__sim/clock/advance', { seconds: 3600 });
  expect((await json<Revision>('GET', `/v2/deployments/${other.id}/revisions/${other.latest_revision_id}`, undefined, on)).status).toBe('BUILD_FAILED');
});

test('authorizeOAuthFlow needs auth_id, 404s an unknown one and completes a flow of either region', async () => {
  const { call, json, keyOf } = admin();
  expect((await call('GET', '/__sim/oauth/authorize')).status).toBe(422);
  expect((await call('GET', '/__sim/oauth/authorize?auth_id=unknown')).status).toBe(404);

  const eu = { endpoint: 'platform-api-eu' as Endpoint, key: keyOf('eu-primary') };
  const body = { provider: 'github', scopes: ['repo'] };
  const started = await json<AuthenticateResponse>('POST', '/v2/auth/authenticate', body, eu);
  expect(started.status).toBe('pending');
  const completed = await json<AuthenticateResponse & { region: string }>('GET', `/__sim/oauth/authorize?auth_id=${started.auth_id}`);
  expect(completed).toMatchObject({ status: 'completed', auth_id: started.auth_id, region: 'eu' });
  expect(await json('POST', '/v2/auth/authenticate', body, eu)).toMatchObject({ status: 'completed', token: completed.token });
});

test('without the admin path, /__sim answers 404 on every endpoint and the planes still serve', async () => {
  const { call } = admin({ admin: false });
  for (const endpoint of ENDPOINTS) expect((await call('GET', '/__sim/info', undefined, { endpoint })).status, endpoint).toBe(404);
  expect((await call('POST', '/__sim/reset', {})).status).toBe(404);
  expect((await call('GET', '/ok')).status).toBe(200);
});
