// State snapshots (GET and PUT /__sim/snapshot, simulate --state and --persist): resources of
// every kind on every plane, made through HTTP, read back the same from a fresh simulator that
// restored the snapshot, and the next ids, timestamps and scheduled work (crons, revision
// builds, upload statistics) are the same on both afterwards. A store left out of the snapshot
// fails the round trip: its reads differ.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { AdminClient, answered } from '../../harness/admin-client.ts';
import type { Snapshot } from '../../specs/types/simulator-admin.ts';
import { Simulator } from '../../simulator/simulator.ts';
import { CLI, cliEnv, ROOT, runCli } from '../self-test/run-cli.ts';

const sims: Simulator[] = [];
test.afterAll(() => Promise.all(sims.map((sim) => sim.close())));

async function simulator(seed = 'snapshot') {
  const sim = await Simulator.start({ seed, quiet: true });
  sims.push(sim);
  const key = (role: string) => sim.info().credentials.api_keys.find((k) => k.role === role)!.key;
  const keys = { us: key('primary'), eu: key('eu-primary') };
  /** A request to a plane (or any base URL, such as a deployment's agent server); answers status and JSON. */
  const call = async (base: string, method: string, path: string, body?: unknown, apiKey = keys.us) => {
    const url = `${sim.urls[base as keyof typeof sim.urls] ?? base}${path}`;
    const res = await fetch(url, {
      method,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': typeof body === 'string' ? MULTIPART_TYPE : 'application/json', 'x-api-key': apiKey },
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const json = async (base: string, method: string, path: string, body?: unknown, apiKey?: string) => {
    const res = await call(base, method, path, body, apiKey);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    return res.json;
  };
  const admin = new AdminClient(sim.urls['agent-server']!);
  return { sim, keys, call, json, admin };
}

type Sim = Awaited<ReturnType<typeof simulator>>;

const TRACE_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ATTACHED_ID = '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e';
const BOUNDARY = 'snapshot-boundary';
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
/** A traced run with an attachment, as the multipart endpoint takes it. */
const MULTIPART = [
  `--${BOUNDARY}`,
  `Content-Disposition: form-data; name="post.${ATTACHED_ID}"`,
  'Content-Type: application/json',
  '',
  JSON.stringify({
    id: ATTACHED_ID,
    trace_id: ATTACHED_ID,
    dotted_order: `20260101T000000000000Z${ATTACHED_ID}`,
    name: 'with-attachment',
    run_type: 'chain',
    start_time: '2026-01-01T00:00:00Z',
    inputs: { q: 'file' },
  }),
  `--${BOUNDARY}`,
  `Content-Disposition: form-data; name="attachment.${ATTACHED_ID}.notes"`,
  'Content-Type: text/plain',
  '',
  'bytes kept through the snapshot',
  `--${BOUNDARY}--`,
  '',
].join('\r\n');

/** Resources of every kind on every plane; answers the ids the reads need. */
async function populate({ json, keys, admin }: Sim) {
  // Agent server: a thread with state and runs, crons on it and stateless.
  const thread = await json('agent-server', 'POST', '/threads', { metadata: { graph_id: 'agent', owner: 'snapshot' } });
  await json('agent-server', 'POST', `/threads/${thread.thread_id}/runs/wait`, {
    assistant_id: 'agent',
    input: { messages: [{ role: 'user', content: 'hi' }] },
  });
  await json('agent-server', 'POST', `/threads/${thread.thread_id}/runs`, { assistant_id: 'agent', input: { fail: true } });
  await json('agent-server', 'POST', `/threads/${thread.thread_id}/runs/crons`, { assistant_id: 'agent', schedule: '*/5 * * * *' });
  await json('agent-server', 'POST', '/runs/crons', { assistant_id: 'agent', schedule: '0 * * * *', metadata: { stateless: true } });

  // Control plane: a deployment deployed (its agent server holding a thread), then updated (a revision in progress),
  // and another whose build is told to fail.
  const [integration] = await json('control-plane', 'GET', '/v1/integrations/sourcehost/install');
  const [repo, other] = await json('control-plane', 'GET', `/v1/integrations/sourcehost/${integration.id}/repos`);
  const body = (r: { url: string; default_branch: string }, name: string) => ({
    name,
    integration_id: integration.id,
    source_config: { repo_url: r.url },
    source_revision_config: { repo_ref: r.default_branch },
  });
  const deployed = await json('control-plane', 'POST', '/v2/deployments', body(repo, 'deployed'));
  answered(await admin.advanceClock({ seconds: 90 }), 'advance');
  const { source_config } = await json('control-plane', 'GET', `/v2/deployments/${deployed.id}`);
  const hosted = await json(source_config.custom_url, 'POST', '/threads', { metadata: { on: 'deployment' } });
  await json('control-plane', 'PATCH', `/v2/deployments/${deployed.id}`, { source_revision_config: { repo_ref: 'release' } });
  const failing = await json('control-plane', 'POST', '/v2/deployments', body(other, 'failing'));
  answered(await admin.failRevision(failing.id, failing.latest_revision_id, { status: 'DEPLOY_FAILED' }), 'fail');
  answered(await admin.advanceClock({ seconds: 20 }), 'advance');

  // Platform API: traced runs (one with an attachment) and feedback in both regions, a dataset, an upload
  // not yet persisted, an OAuth flow.
  await json('platform-api', 'POST', '/runs', { id: TRACE_ID, name: 'root', run_type: 'chain', inputs: { q: 1 }, session_name: 'snap' });
  await json('platform-api', 'PATCH', `/runs/${TRACE_ID}`, { outputs: { a: 2 }, end_time: '2026-01-01T00:02:00Z' });
  await json('platform-api', 'POST', '/runs/multipart', MULTIPART);
  await json('platform-api', 'POST', '/feedback', { run_id: TRACE_ID, key: 'correct', score: 1 });
  await json('platform-api-eu', 'POST', '/runs', { id: TRACE_ID, name: 'eu-root', run_type: 'llm', inputs: {} }, keys.eu);
  await json('platform-api-eu', 'POST', '/feedback', { run_id: TRACE_ID, key: 'eu', score: 0 }, keys.eu);
  const dataset = await json('platform-api', 'POST', '/api/v1/datasets', { name: 'made-here' });
  const { experiment } = await json('platform-api', 'POST', '/api/v1/datasets/upload-experiment', {
    experiment_name: 'exp',
    experiment_start_time: '2026-01-01T00:00:00Z',
    experiment_end_time: '2026-01-01T01:00:00Z',
    dataset_name: 'uploaded',
    results: [
      {
        row_id: '5b0c7e1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d',
        inputs: { q: 1 },
        start_time: '2026-01-01T00:10:00Z',
        end_time: '2026-01-01T00:10:02Z',
        evaluation_scores: [{ key: 'accuracy', score: 0.5 }],
      },
    ],
  });
  await json('platform-api', 'POST', '/v2/auth/authenticate', { provider: 'github', scopes: ['repo'], user_id: 'u1' });
  return { thread: thread.thread_id, hosted: hosted.thread_id, deployments: [deployed.id, failing.id], dataset: dataset.id, experiment: experiment.id };
}

/** Everything the API shows of the resources, read through it. */
async function readAll({ json, keys, admin }: Sim, ids: Awaited<ReturnType<typeof populate>>) {
  const deployments = await json('control-plane', 'GET', '/v2/deployments');
  const hostedUrl = deployments.resources.find((d: { id: string }) => d.id === ids.deployments[0]).source_config.custom_url;
  return {
    threads: await json('agent-server', 'POST', '/threads/search', { limit: 100 }),
    state: await json('agent-server', 'GET', `/threads/${ids.thread}/state`),
    history: await json('agent-server', 'POST', `/threads/${ids.thread}/history`, { limit: 100 }),
    runs: await json('agent-server', 'GET', `/threads/${ids.thread}/runs`),
    assistants: await json('agent-server', 'POST', '/assistants/search', {}),
    crons: await json('agent-server', 'POST', '/runs/crons/search', {}),
    // The port may change on a restore; what the deployment's agent server holds may not.
    deployments: deployments.resources.map((d: { source_config: object }) => ({ ...d, source_config: { ...d.source_config, custom_url: '' } })),
    revisions: await Promise.all(ids.deployments.map((id) => json('control-plane', 'GET', `/v2/deployments/${id}/revisions`))),
    hosted: await json(hostedUrl, 'POST', '/threads/search', {}),
    hostedThread: await json(hostedUrl, 'GET', `/threads/${ids.hosted}`),
    traces: await json('platform-api', 'POST', '/runs/query', { limit: 100 }),
    attached: await json('platform-api', 'GET', `/runs/${ATTACHED_ID}`),
    feedback: await json('platform-api', 'GET', '/feedback'),
    euTraces: await json('platform-api-eu', 'POST', '/runs/query', {}, keys.eu),
    euFeedback: await json('platform-api-eu', 'GET', '/feedback', undefined, keys.eu),
    datasets: await json('platform-api', 'GET', '/api/v1/datasets'),
    examples: await json('platform-api', 'GET', `/api/v1/examples?dataset=${ids.dataset}`),
    sessions: await json('platform-api', 'GET', `/api/v1/sessions/${ids.experiment}`),
    projects: await json('platform-api', 'GET', '/api/v1/sessions?name=snap'),
    oauth: await json('platform-api', 'POST', '/v2/auth/authenticate', { provider: 'github', scopes: ['repo'], user_id: 'u1' }),
    clock: answered(await admin.getClock(), 'clock'),
  };
}

test('a snapshot restored into a fresh simulator reads back every resource, and the same requests then give the same ids', async () => {
  const source = await simulator();
  const ids = await populate(source);
  const snapshot = answered(await source.admin.getSnapshot(), 'snapshot');
  const before = await readAll(source, ids);

  const target = await simulator('another seed');
  await target.json('agent-server', 'POST', '/threads', { metadata: { stale: true } });
  answered(await target.admin.restoreSnapshot(snapshot), 'restore');
  expect((await target.admin.getSimulatorInfo()).json.seed).toBe('snapshot');
  expect(await readAll(target, ids)).toEqual(before);
  expect(snapshotWithoutAddresses(answered(await target.admin.getSnapshot(), 'snapshot again')), 'it snapshots as it was restored').toEqual(
    snapshotWithoutAddresses(snapshot),
  );

  // Same seed and same snapshot: the same ids and timestamps afterwards, and scheduled work resumes alike
  // (the cron fires, the revision in progress deploys, the failing one fails, the upload's runs persist).
  for (const sim of [source, target]) answered(await sim.admin.advanceClock({ seconds: 600 }), 'advance');
  const next = async (sim: Sim) => ({
    thread: await sim.json('agent-server', 'POST', '/threads', {}),
    feedback: await sim.json('platform-api', 'POST', '/feedback', { run_id: TRACE_ID, key: 'later' }),
    after: await readAll(sim, ids),
  });
  expect(await next(target)).toEqual(await next(source));
});

/** A snapshot with the agent servers' addresses left out: a restored deployment may listen on another port. */
function snapshotWithoutAddresses(snapshot: Snapshot): unknown {
  return JSON.parse(JSON.stringify(snapshot, (key, value) => (key === 'url' || key === 'custom_url' ? undefined : value)));
}

test('a snapshot is refused with 409 while a run is in progress; a malformed one with 422, the state left as it was', async () => {
  const sim = await simulator();
  const thread = await sim.json('agent-server', 'POST', '/threads', {});
  await sim.json('agent-server', 'POST', `/threads/${thread.thread_id}/runs`, { assistant_id: 'agent', input: { delay_ms: 1000 } });
  const refused = await sim.admin.getSnapshot();
  expect(refused.status).toBe(409);
  expect(JSON.stringify(refused.json)).toContain('in progress');
  answered(await sim.admin.advanceClock({ ms: 1000 }), 'advance');
  const snapshot = answered(await sim.admin.getSnapshot(), 'snapshot');

  const malformed: unknown[] = [
    { ...snapshot, version: 2 },
    { ...snapshot, ids: [1, 2, 3] },
    { ...snapshot, planes: { ...snapshot.planes, platform_api: { us: {} } } },
    // Valid as an envelope, but its agent server part is not one this simulator wrote.
    { ...snapshot, planes: { ...snapshot.planes, agent_server: { threads: 5 } } },
  ];
  for (const body of malformed) {
    const res = await sim.admin.restoreSnapshot(body as Snapshot);
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(answered(await sim.admin.getSnapshot(), 'unchanged'), 'the state is left as it was').toEqual(snapshot);
  }
});

test('simulate --state starts from a snapshot file and --persist saves the state on SIGTERM; a bad file is a usage error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'apc-snapshot-'));
  const source = await simulator();
  const thread = await source.json('agent-server', 'POST', '/threads', { metadata: { from: 'file' } });
  const stateFile = join(dir, 'state.json');
  writeFileSync(stateFile, JSON.stringify(answered(await source.admin.getSnapshot(), 'snapshot')));
  const persistFile = join(dir, 'persist.json');

  const child = spawn(process.execPath, [CLI, 'simulate', '--state', stateFile, '--persist', persistFile], { cwd: ROOT, env: cliEnv() });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await expect.poll(() => stdout.includes('Ctrl-C to stop'), { timeout: 30_000 }).toBe(true);
  const agentServer = /LANGGRAPH_API_URL=(\S+)/.exec(stdout)![1];
  const headers = { 'content-type': 'application/json', 'x-api-key': source.keys.us };
  expect(await (await fetch(`${agentServer}/threads/${thread.thread_id}`, { headers })).json()).toEqual(
    await source.json('agent-server', 'GET', `/threads/${thread.thread_id}`),
  );
  const added = await (await fetch(`${agentServer}/threads`, { method: 'POST', headers, body: '{}' })).json();
  expect(existsSync(persistFile)).toBe(false);
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  const saved = JSON.parse(readFileSync(persistFile, 'utf8')) as Snapshot;
  const savedThreads = (saved.planes.agent_server as { threads: { threads: { thread_id: string }[] } }).threads.threads.map((t) => t.thread_id);
  expect(savedThreads).toEqual([thread.thread_id, added.thread_id]);

  const missing = await runCli(['simulate', '--state', join(dir, 'nowhere.json')]);
  expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('cannot start from')]);
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ version: 1 }));
  const invalid = await runCli(['simulate', '--state', join(dir, 'bad.json')]);
  expect([invalid.code, invalid.stderr]).toEqual([2, expect.stringContaining('Not a snapshot')]);
});
