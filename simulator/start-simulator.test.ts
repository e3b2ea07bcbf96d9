import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STILL_MS } from './still-clock.ts';
import { SimulatorError, type Snapshot, startSimulator, type RunningSimulator } from './start-simulator.ts';

const json = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, json(body));
  expect(response.status, `POST ${url}`).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

test.describe('with the defaults', () => {
  let sim: RunningSimulator;
  test.beforeAll(async () => {
    sim = await startSimulator();
  });
  test.afterAll(() => sim.close());

  test('it listens on a free port per plane and names the environment the official clients read', async () => {
    expect(Object.keys(sim.urls).sort()).toEqual(['agent-server', 'control-plane', 'platform-api', 'platform-api-eu']);
    expect(new Set(Object.values(sim.urls)).size).toBe(4);
    expect(sim.env).toEqual({
      LANGSMITH_ENDPOINT: sim.urls['platform-api'],
      LANGSMITH_API_KEY: sim.apiKey,
      LANGSMITH_TRACING: 'true',
      LANGGRAPH_API_URL: sim.urls['agent-server'],
    });
    expect(sim.credentials.api_keys.find((key) => key.key === sim.apiKey)?.role).toBe('primary');
    const info = await sim.getSimulatorInfo();
    expect(info.clock).toEqual({ kind: 'real', time_scale: 1 });
    expect(info.seed).toBe('1');
  });

  test('time moves by itself: a run with delay_ms is seen in progress, then join answers its final state', async () => {
    const base = sim.urls['agent-server'];
    const thread = await post(`${base}/threads`, {});
    const run = await post(`${base}/threads/${thread.thread_id}/runs`, { assistant_id: 'agent', input: { topic: 'later', delay_ms: 300 } });
    expect(['pending', 'running']).toContain(run.status);
    const joined = await (await fetch(`${base}/threads/${thread.thread_id}/runs/${run.run_id}/join`)).json();
    expect(JSON.stringify(joined)).toContain('echo: later');
    const after = await (await fetch(`${base}/threads/${thread.thread_id}/runs/${run.run_id}`)).json();
    expect(after.status).toBe('success');
    expect(Date.parse(after.updated_at) - Date.parse(run.created_at as string)).toBeGreaterThanOrEqual(300);
  });

  test('the real clock cannot be advanced: the refusal is a SimulatorError with the admin path status', async () => {
    const refusal = await sim.advanceClock({ ms: 1000 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SimulatorError);
    expect((refusal as SimulatorError).status).toBe(409);
  });

  test('faults are set, listed, met by requests and cleared; an invalid one is refused with its reason', async () => {
    await sim.setFault({ method: 'POST', path: '/threads', status: 503, count: 1 });
    expect((await sim.listFaults()).faults).toHaveLength(1);
    expect((await fetch(`${sim.urls['agent-server']}/threads`, json({}))).status).toBe(503);
    expect((await fetch(`${sim.urls['agent-server']}/threads`, json({}))).status).toBe(200);
    const refusal = (await sim.setFault({ status: 503, reset: true }).catch((error: unknown) => error)) as SimulatorError;
    expect(refusal.status).toBe(422);
    expect(refusal.message).toMatch(/Invalid fault/);
    await sim.setFault({ status: 500 });
    await sim.clearFaults();
    expect((await sim.listFaults()).faults).toEqual([]);
  });
});

test('on the virtual clock, time moves when told; a snapshot restores the state and the id stream, also at start', async () => {
  const sim = await startSimulator({ clock: 'virtual', seed: 'in-process' });
  try {
    const { now } = await sim.getClock();
    expect((await sim.advanceClock({ ms: 90_000 })).now).toBe(new Date(Date.parse(now) + 90_000).toISOString());
    const first = await (await sim.request('agent-server', '/threads', json({}))).json();
    const snapshot = await sim.getSnapshot();
    const second = await (await sim.request('agent-server', '/threads', json({}))).json();
    await sim.restoreSnapshot(snapshot);
    expect((await sim.request('agent-server', `/threads/${second.thread_id}`)).status).toBe(404);
    expect((await (await sim.request('agent-server', '/threads', json({}))).json()).thread_id).toBe(second.thread_id);
    await sim.resetSimulator();
    expect((await (await sim.request('agent-server', '/threads', json({}))).json()).thread_id).toBe(first.thread_id);

    const restarted = await startSimulator({ clock: 'virtual', state: snapshot });
    try {
      expect((await restarted.getSimulatorInfo()).seed).toBe('in-process');
      expect((await restarted.request('agent-server', `/threads/${first.thread_id}`)).status).toBe(200);
    } finally {
      await restarted.close();
    }
  } finally {
    await sim.close();
  }
});

test('on the real clock a snapshot loads at the later of its time and the clock: time never goes back', async () => {
  const saved = await startSimulator({ clock: 'virtual', seed: 'old-state' });
  const snapshot = await saved.getSnapshot();
  await saved.close();
  expect(snapshot.clock.now).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
  const before = Date.now();
  const sim = await startSimulator({ state: snapshot });
  try {
    expect(Date.parse((await sim.getClock()).now)).toBeGreaterThanOrEqual(before);
    expect((await sim.getSimulatorInfo()).seed).toBe('old-state');
  } finally {
    await sim.close();
  }
});

test('an option it cannot take is a TypeError naming it; a state that does not load is refused as the state option', async () => {
  await expect(startSimulator({ clock: 'fake' as 'real' })).rejects.toThrow(new TypeError("startSimulator: clock must be real or virtual, got 'fake'"));
  await expect(startSimulator({ state: { version: 1 } as Snapshot })).rejects.toThrow(
    /^startSimulator: state must be a snapshot \(what getSnapshot\(\) answers\)/,
  );
  const sim = await startSimulator({ clock: 'virtual' });
  const snapshot = await sim.getSnapshot();
  await sim.close();
  // Its schema leaves a plane's records open: one that passes it may still not load.
  const unloadable = { ...snapshot, planes: { ...snapshot.planes, agent_server: {} } };
  await expect(startSimulator({ clock: 'virtual', state: unloadable })).rejects.toThrow(/^startSimulator: state: Not a snapshot this simulator can load/);
});

test("a configuration's ${{ env.NAME }} headers read the env option, never this process's environment", async () => {
  const config = join(mkdtempSync(join(tmpdir(), 'apc-env-')), 'langgraph.json');
  writeFileSync(config, JSON.stringify({ webhooks: { headers: { 'X-Key': '${{ env.LG_WEBHOOK_APC_KEY }}' } } }));
  process.env.LG_WEBHOOK_APC_KEY = 'from-the-process';
  try {
    await expect(startSimulator({ clock: 'virtual', config })).rejects.toThrow(
      /references the environment variable LG_WEBHOOK_APC_KEY, which is not set; .*startSimulator's env option/,
    );
  } finally {
    delete process.env.LG_WEBHOOK_APC_KEY;
  }
  await (await startSimulator({ clock: 'virtual', config, env: { LG_WEBHOOK_APC_KEY: 'k' } })).close();
});

test('a node:test file that forgets close() ends when its tests do, and says the simulator was never closed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'apc-forgets-'));
  const file = join(dir, 'forgets.test.ts');
  writeFileSync(
    file,
    [
      "import assert from 'node:assert/strict';",
      "import { before, test } from 'node:test';",
      `import { startSimulator } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'start-simulator.ts')).href)};`,
      'let sim;',
      "before(async () => { sim = await startSimulator({ seed: 'forgets' }); });",
      "test('a thread is created', async () => {",
      "  const res = await fetch(`${sim.urls['agent-server']}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });",
      '  assert.equal(res.status, 200);',
      '});',
    ].join('\n'),
  );
  // Run as a user runs it; tsx only because this file imports the sources.
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', file], { cwd: join(import.meta.dirname, '..') });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const hung = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(hung);
  expect(code, `it ended by itself:\n${output}`).toBe(0);
  expect(output).toContain('ok 1 - a thread is created');
  expect(output).toMatch(/\[APC_SIMULATOR_NOT_CLOSED\] Warning: the simulator at http:\/\/127\.0\.0\.1:\d+ was never closed/);
});

test('on the virtual clock, a join that waits for a clock nobody moves is told once, with how to move it', async () => {
  test.setTimeout(30_000);
  const sim = await startSimulator({ clock: 'virtual' });
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    if (String(chunk).includes('[simulator]')) lines.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    const url = sim.urls['agent-server'];
    const thread = await post(`${url}/threads`, {});
    const run = await post(`${url}/threads/${thread.thread_id}/runs`, { assistant_id: 'agent', input: { delay_ms: 60_000 } });
    const joined = fetch(`${url}/threads/${thread.thread_id}/runs/${run.run_id}/join`);
    await new Promise((resolve) => setTimeout(resolve, STILL_MS + 1_000));
    expect(lines).toEqual([expect.stringContaining(`[simulator] warn: A request for the end of run ${run.run_id}`)]);
    expect(lines[0]).toContain('has waited 5 s for the virtual clock, which has not moved: advance it (advanceClock({ ms })');
    await sim.advanceClock({ ms: 60_000 });
    expect((await joined).status).toBe(200);
  } finally {
    process.stderr.write = write;
    await sim.close();
  }
});
