// Spec-only mode, as a client team starts it: `startSimulator({ spec: 'only' })` in process and
// `simulate --spec-only` on the command line. Every operation the contract marks beyond the spec
// (x-spec: extra) answers 404 in its plane's error shape, naming the operation; what the spec shows
// is served as usual, and the admin info says which mode the simulator is in.
import { expect, test } from '@playwright/test';
import { contract, type Endpoint, type Operation, pathOf, PLANES, type Plane } from '../../specs/contract.ts';
import { type RunningSimulator, startSimulator } from '../../simulator/start-simulator.ts';
import { runCli } from '../self-test/run-cli.ts';
import { startStandIn } from '../self-test/stand-in.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const ENDPOINT: Record<Plane, Endpoint> = { 'agent-server': 'agent-server', 'control-plane': 'control-plane', 'platform-api': 'platform-api' };

/** The path of an operation with each parameter a well-formed id. */
function pathTo(operation: Operation): string {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  return pathOf(operation, Object.fromEntries(names.map((name) => [name, '01a2019e-7617-7531-8d44-d0b7d1cb0011'])));
}

const beyond = (plane: Plane) =>
  contract()
    .operationsOf(plane)
    .filter((o) => o.notShown);

test.describe("startSimulator({ spec: 'only' })", () => {
  let sim: RunningSimulator;
  test.beforeAll(async () => {
    // Without limits: two operations beyond the spec (runStats, readRunStats) share §8's 1 / 10 s row.
    sim = await startSimulator({ spec: 'only', clock: 'virtual', rateLimits: false });
  });
  test.afterAll(() => sim.close());

  for (const plane of PLANES) {
    test(`every operation of the ${plane} beyond the spec answers 404 naming it`, async () => {
      const operations = beyond(plane);
      expect(operations.length).toBeGreaterThan(0);
      for (const operation of operations) {
        const response = await sim.request(ENDPOINT[plane], pathTo(operation), { method: operation.method, headers: { 'x-api-key': sim.apiKey } });
        const body = (await response.json()) as { detail: string };
        expect([response.status, response.headers.get('content-type')], `${operation.operationId}`).toEqual([404, 'application/json']);
        expect(body.detail).toBe(
          `${operation.operationId} (${operation.method} ${operation.path}) is beyond the spec: the contract marks it x-spec: extra, and this simulator serves only what the spec shows (spec-only mode)`,
        );
      }
    });
  }

  test('what the spec shows is served on each plane, and the info says spec: only', async () => {
    const headers = { ...JSON_TYPE, 'x-api-key': sim.apiKey };
    const thread = await sim.request('agent-server', '/threads', { method: 'POST', headers, body: '{}' });
    expect(thread.status).toBe(200);
    const run = { id: '01a2019e-7617-7531-8d44-d0b7d1cb0012', name: 'r', run_type: 'chain', inputs: {}, start_time: '2026-01-01T00:00:00Z' };
    expect((await sim.request('platform-api', '/runs', { method: 'POST', headers, body: JSON.stringify(run) })).status).toBe(202);
    // A create deployment without its fields reaches its operation's validation, not the beyond-the-spec 404.
    expect((await sim.request('control-plane', '/v2/deployments', { method: 'POST', headers, body: '{}' })).status).toBe(422);
    expect((await sim.getSimulatorInfo()).spec).toBe('only');
  });

  test('an option value it cannot take is refused by name', async () => {
    await expect(startSimulator({ spec: 'none' as 'only' })).rejects.toThrow("startSimulator: spec must be 'all' or 'only', got 'none'");
  });
});

test('by default every operation is served, and the info says spec: all', async () => {
  const sim = await startSimulator({ clock: 'virtual' });
  try {
    expect((await sim.request('agent-server', '/info')).status).toBe(200);
    expect((await sim.getSimulatorInfo()).spec).toBe('all');
  } finally {
    await sim.close();
  }
});

test('simulate --spec-only: says so, answers 404 naming an operation beyond the spec, serves the rest; --help tells it', async () => {
  const sim = await startStandIn(['--clock', 'virtual', '--spec-only', '--log-level', 'warn']);
  try {
    expect(sim.out).toContain('[simulator] spec only (--spec-only): each operation beyond the spec answers 404 naming it');
    const info = await fetch(`${sim.planes['agent-server']}/info`);
    expect([info.status, await info.json()]).toEqual([404, { detail: expect.stringMatching(/^getServerInfo \(GET \/info\) is beyond the spec/) }]);
    const runs = await fetch(`${sim.planes['platform-api']}/runs/01a2019e-7617-7531-8d44-d0b7d1cb0011`, { headers: { 'x-api-key': sim.keys.primary! } });
    expect([runs.status, await runs.json()]).toEqual([404, { detail: expect.stringMatching(/^readRun \(GET \/runs\/\{run_id\}\) is beyond the spec/) }]);
    expect((await fetch(`${sim.planes['agent-server']}/threads`, { method: 'POST', headers: JSON_TYPE, body: '{}' })).status).toBe(200);
    expect(((await (await fetch(`${sim.planes['agent-server']}/__sim/info`)).json()) as { spec: string }).spec).toBe('only');
  } finally {
    await sim.stop();
  }
  const help = await runCli(['simulate', '--help']);
  expect(help.stdout).toMatch(/--spec-only +serve only what the spec shows/);
});
