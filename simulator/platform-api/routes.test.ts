// The platform API's route table (routes.ts), in process: every row is served bare and under
// /api/v1 (x-base-paths) with the same answer, /v2/auth/authenticate only bare; GET /info needs
// no key, every other row an API key of this region; ingestion answers 202; each row reaches the
// region's stores in the caller's workspace with its path, query and body. The stores themselves
// (traces, experiments, multipart, oauth) are tested beside them.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import type { Dataset, Experiment } from '../../specs/types/platform-api.ts';
import { Simulator } from '../simulator.ts';

const RUN = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
const OTHER_RUN = '0c2b9d5e-6a1f-4e3b-8c7d-9e0f1a2b3c4d';
const run = (id: string) => ({ id, name: 'r', run_type: 'chain', start_time: '2026-01-01T00:00:00Z', inputs: { q: 1 } });
const upload = {
  experiment_name: 'exp',
  experiment_start_time: '2026-01-01T00:00:00Z',
  experiment_end_time: '2026-01-01T01:00:00Z',
  dataset_name: 'ds',
  results: [{ row_id: '5b0c7e1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d', inputs: { q: 1 }, start_time: '2026-01-01T00:10:00Z', end_time: '2026-01-01T00:10:02Z' }],
};
/** A multipart body the official client sent (three nested runs), with its content type. */
const multipart = readFileSync(new URL('../../fixtures/platform/multipart/traceable-nested.multipart', import.meta.url));
const multipartType = `multipart/form-data; boundary=${multipart.toString('latin1').split('\r\n')[0].slice(2)}`;

type Endpoint = 'platform-api' | 'platform-api-eu';
interface Options {
  body?: unknown;
  /** The API key to send: the US primary key unless told (null sends none). */
  key?: string | null;
  endpoint?: Endpoint;
}

function platform() {
  const sim = new Simulator({ seed: 'platform-routes', quiet: true });
  const keyOf = (role: string) => sim.info().credentials.api_keys.find((k) => k.role === role)!.key;
  const keys = { us: keyOf('primary'), eu: keyOf('eu-primary') };
  const call = (method: string, path: string, { body, key = keys.us, endpoint = 'platform-api' }: Options = {}) => {
    const raw = Buffer.isBuffer(body);
    return sim.request(endpoint, path, {
      method,
      body: body === undefined ? undefined : raw ? new Uint8Array(body) : JSON.stringify(body),
      headers: { 'content-type': raw ? multipartType : 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    });
  };
  const json = async <T>(method: string, path: string, options?: Options): Promise<T> => {
    const res = await call(method, path, options);
    expect(res.status, `${method} ${path}`).toBe(200);
    return (await res.json()) as T;
  };
  return { call, json, keys };
}

test('every row is served bare and under /api/v1 with the same answer; /v2/auth/authenticate only bare', async () => {
  const { call, json } = platform();
  expect((await call('POST', '/api/v1/runs', { body: run(RUN) })).status).toBe(202);
  const feedback = await json<{ id: string }>('POST', '/api/v1/feedback', { body: { run_id: RUN, key: 'k', score: 1 } });
  const dataset = await json<Dataset>('POST', '/api/v1/datasets', { body: { name: 'made' } });
  const { experiment } = await json<{ experiment: Experiment }>('POST', '/api/v1/datasets/upload-experiment', { body: upload });
  const reads: [string, string, unknown?][] = [
    ['GET', `/runs/${RUN}`],
    ['POST', '/runs/query', { id: [RUN] }],
    ['GET', `/feedback?run=${RUN}`],
    ['GET', `/feedback/${feedback.id}`],
    ['GET', '/datasets?name=made'],
    ['GET', `/datasets/${dataset.id}`],
    ['GET', `/examples?dataset=${dataset.id}`],
    ['GET', '/sessions'],
    ['POST', '/runs/stats', { id: [RUN] }],
    ['GET', `/sessions/${experiment.id}`],
    ['GET', '/info'],
  ];
  for (const [method, path, body] of reads) {
    const bare = await call(method, path, { body });
    const prefixed = await call(method, `/api/v1${path}`, { body });
    expect([bare.status, prefixed.status], path).toEqual([200, 200]);
    expect(await prefixed.json(), path).toEqual(await bare.json());
  }
  // GET /runs/stats is stats, never a run named 'stats' (under /api/v1: §8's one-per-10-s row counts the bare path).
  expect(await json('GET', `/api/v1/runs/stats?session=${OTHER_RUN}`)).toMatchObject({ run_count: 0 });
  const authenticate = { body: { provider: 'github', scopes: ['repo'] } };
  expect((await call('POST', '/v2/auth/authenticate', authenticate)).status).toBe(200);
  expect((await call('POST', '/api/v1/v2/auth/authenticate', authenticate)).status).toBe(404);
});

test('GET /info needs no key; every other row answers 401 without one', async () => {
  const { call } = platform();
  // Bodies and queries that pass the schema, so the refusal is the credentials'.
  const bodies: Record<string, unknown> = {
    authenticate: { provider: 'github', scopes: ['repo'] },
    createRun: run(RUN),
    updateRun: { outputs: {} },
    ingestRunsMultipart: multipart,
    ingestRunsBatch: { post: [] },
    queryRuns: {},
    createFeedback: { run_id: RUN, key: 'k' },
    uploadExperiment: upload,
    createDataset: { name: 'd' },
  };
  const operations = contract().operationsOf('platform-api');
  expect(operations.length).toBeGreaterThan(15);
  for (const op of operations) {
    const path = op.path.replace(/\{\w+\}/g, OTHER_RUN) + (op.operationId === 'listExamples' ? `?dataset=${OTHER_RUN}` : '');
    const res = await call(op.method, path, { body: bodies[op.operationId], key: null });
    expect(res.status, op.operationId).toBe(op.operationId === 'getInfo' ? 200 : 401);
  }
});

test('a key of the other region is refused; each region answers its own data', async () => {
  const { call, json, keys } = platform();
  expect((await call('POST', '/runs', { body: run(RUN) })).status).toBe(202);
  expect((await call('GET', `/runs/${RUN}`, { key: keys.eu })).status).toBe(401);
  expect((await call('GET', `/runs/${RUN}`, { endpoint: 'platform-api-eu' })).status).toBe(401);
  expect((await call('GET', `/runs/${RUN}`, { key: keys.eu, endpoint: 'platform-api-eu' })).status).toBe(404);
  expect(await json('GET', '/info', { key: null, endpoint: 'platform-api-eu' })).toMatchObject({ region: 'eu' });
  expect(await json('GET', '/info', { key: null })).toMatchObject({ region: 'us' });
});

test('createRun and updateRun answer 202; the update reaches the run its path names, in any case', async () => {
  const { call, json } = platform();
  const created = await call('POST', '/runs', { body: run(RUN) });
  expect([created.status, await created.json()]).toEqual([202, { message: 'Run created' }]);
  const updated = await call('PATCH', `/runs/${RUN.toUpperCase()}`, { body: { outputs: { a: 1 } } });
  expect([updated.status, await updated.json()]).toEqual([202, { message: 'Run updated' }]);
  expect(await json('GET', `/runs/${RUN}`)).toMatchObject({ id: RUN, inputs: { q: 1 }, outputs: { a: 1 } });
  // PATCH /runs, as §4.3's table writes it: the run named by the id in the body.
  const inBody = await call('PATCH', '/runs', { body: { id: RUN, outputs: { a: 2 } } });
  expect([inBody.status, await inBody.json()]).toEqual([202, { message: 'Run updated' }]);
  expect(await json('GET', `/runs/${RUN}`)).toMatchObject({ id: RUN, outputs: { a: 2 } });
  expect((await call('PATCH', '/runs', { body: { outputs: {} } })).status, 'no id, no run to update').toBe(422);
  expect((await call('PATCH', '/runs', { body: { id: OTHER_RUN, outputs: {} } })).status).toBe(404);
});

test('batch and multipart ingestion answer 202 and store their runs', async () => {
  const { call, json } = platform();
  const dotted = `20260101T000000000000Z${OTHER_RUN}`;
  const batch = await call('POST', '/runs/batch', {
    body: { post: [{ ...run(OTHER_RUN), trace_id: OTHER_RUN, dotted_order: dotted }], patch: [{ id: OTHER_RUN.toUpperCase(), outputs: { b: 2 } }] },
  });
  expect([batch.status, await batch.json()]).toEqual([202, { message: 'Runs batch ingested' }]);
  expect(await json('GET', `/runs/${OTHER_RUN}`)).toMatchObject({ outputs: { b: 2 } });

  const ingested = await call('POST', '/runs/multipart', { body: multipart });
  expect([ingested.status, await ingested.json()]).toEqual([202, { message: 'Accepted' }]);
  const { runs } = await json<{ runs: { name: string }[] }>('POST', '/runs/query', { body: { trace: RUN } });
  expect(runs.length).toBe(3);
});

test('feedback, dataset, example and session rows pass their path and query', async () => {
  const { call, json } = platform();
  await call('POST', '/runs', { body: run(RUN) });
  await call('POST', '/runs', { body: run(OTHER_RUN) });
  const feedback = await json<{ id: string }>('POST', '/feedback', { body: { run_id: RUN, key: 'k', score: 1 } });
  await json('POST', '/feedback', { body: { run_id: OTHER_RUN, key: 'k', score: 0 } });
  expect((await json<{ id: string }[]>('GET', `/feedback?run=${RUN}`)).map((f) => f.id)).toEqual([feedback.id]);
  expect(await json('GET', `/feedback/${feedback.id}`)).toMatchObject({ run_id: RUN, score: 1 });

  const made = await json<Dataset>('POST', '/datasets', { body: { name: 'made' } });
  const { dataset, experiment } = await json<{ dataset: Dataset; experiment: Experiment }>('POST', '/datasets/upload-experiment', { body: upload });
  const names = async (query: string) => (await json<Dataset[]>('GET', `/datasets${query}`)).map((d) => d.name).sort();
  expect(await names('')).toEqual(['ds', 'made']);
  expect(await names('?name=made')).toEqual(['made']);
  expect(await names(`?id=${dataset.id}&id=${made.id}`)).toEqual(['ds', 'made']);
  expect(await names(`?id=${dataset.id}`)).toEqual(['ds']);
  expect((await json<Dataset>('GET', `/datasets/${made.id}`)).name).toBe('made');
  expect((await json<unknown[]>('GET', `/examples?dataset=${dataset.id}`)).length).toBe(1);

  // Sessions are experiments and tracing projects alike.
  expect((await json<{ name: string }[]>('GET', '/sessions?name=exp')).map((s) => s.name)).toEqual(['exp']);
  const [project] = await json<{ id: string; name: string }[]>('GET', '/sessions?name=default');
  expect(project.name).toBe('default');
  expect(await json('GET', `/sessions/${experiment.id}`)).toMatchObject({ id: experiment.id, name: 'exp' });
  expect(await json('GET', `/sessions/${project.id}`)).toMatchObject({ id: project.id, name: 'default' });
  expect((await call('GET', `/sessions/${OTHER_RUN}`)).status).toBe(404);
});
