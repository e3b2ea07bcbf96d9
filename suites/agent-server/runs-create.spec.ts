// §2.9, §3, §4.5: creating runs on a thread.
import { forRule } from '../../harness/checks/attribution.ts';
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectSchema, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import type { ApiResponse } from '../../harness/client.ts';
import type { Assistant } from '../../specs/types/agent-server.ts';
import { expectOnlyRun, join, newThread, readState, startRun, texts, threadWithRun, type Run } from './runs-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const RUN_STATUSES = ['pending', 'running', 'error', 'success', 'timeout', 'interrupted'];

test('POST /threads/{thread_id}/runs creates a run and answers it with its run_id', { tag: '@RUN-CREATE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'create' }, multitask_strategy: 'enqueue' });
  expectStatus(res, '2xx');
  expectSchema(res, 'agent-server', 'Run');
  expect(typeof res.json.run_id, res.describe('run_id')).toBe('string');
  const read = await agent.get<Run>(`/threads/${thread}/runs/${res.json.run_id}`);
  expectStatus(read, '2xx');
  expect(read.json.run_id, read.describe('the created run can be read')).toBe(res.json.run_id);
});

test.describe("a run's assistant_id accepts a graph id or an assistant UUID", { tag: '@RUN-CREATE-ASSISTANT-ID' }, () => {
  test('graph id', async ({ agent }) => {
    const thread = await newThread(agent);
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {} });
    expectStatus(res, '2xx');
  });
  test('assistant UUID', async ({ agent }) => {
    const assistant = await agent.get<Assistant>('/assistants/agent');
    precondition(assistant, "read the graph's default assistant");
    const thread = await newThread(agent);
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: assistant.json.assistant_id, input: {} });
    expectStatus(res, '2xx');
    expect(res.json.assistant_id, res.describe('the run names that assistant')).toBe(assistant.json.assistant_id);
  });
});

test("a run's input object is passed to the graph", { tag: '@RUN-CREATE-INPUT' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'input reaches the graph' } });
  await join(agent, thread, run.run_id);
  const state = await readState(agent, thread);
  expect(state.values.topic, 'the input is in the state').toBe('input reaches the graph');
  expect(texts(state), 'the graph answered the input').toContain('echo: input reaches the graph');
});

test('what a run answer holds beyond run_id', { tag: '@RUN-CREATE-OTHER-FIELDS' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const res = await agent.post<Record<string, unknown>>(`/threads/${thread}/runs`, {
    assistant_id: 'agent',
    input: {},
    metadata: { k: 'v' },
    config: { tags: ['t'] },
  });
  precondition(res, 'create a run');
  observe('RUN-CREATE-OTHER-FIELDS', `status ${res.status}; fields: ${Object.keys(res.json).sort().join(', ')}`);
});

test('thread-scoped run paths are served under /threads/{thread_id}/', { tag: '@RUN-PATH-THREADS-PLURAL' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const created = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {} });
  expectStatus(created, '2xx');
  const joined = await agent.get(`/threads/${thread}/runs/${created.json.run_id}/join`);
  expectStatus(joined, '2xx');
  const waited = await agent.post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: {} });
  expectStatus(waited, '2xx');
});

// The run as read and each run of a list: a server may build a list's items apart from the
// single read, and leave fields out or give them other types there.
test('a run object has the fields of the reference Run', { tag: '@RUN-SHAPE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'shape' } });
  await join(agent, thread, run.run_id);
  const read = await agent.get<Record<string, unknown>>(`/threads/${thread}/runs/${run.run_id}`);
  precondition(read, 'read the run');
  const judge = (res: ApiResponse, value: Record<string, unknown>, as: string) => {
    // A field that is there but null holds nothing of what the reference's run carries.
    for (const field of ['run_id', 'thread_id', 'assistant_id', 'created_at', 'updated_at', 'status', 'metadata', 'kwargs', 'multitask_strategy']) {
      expect(value[field] ?? null, res.describe(`${as}: has ${field}`)).not.toBeNull();
    }
    expectSchema(res, 'agent-server', 'Run', value);
    expect(value.thread_id, res.describe(`${as}: thread_id`)).toBe(thread);
  };
  judge(read, read.json, 'as read');
  const list = await agent.get<Record<string, unknown>[]>(`/threads/${thread}/runs`);
  for (const listed of preconditionArray(list, 'list the runs', 1)) judge(list, listed, 'as listed');
});

test('a run status is one of pending, running, error, success, timeout, interrupted', { tag: '@RUN-STATUS-VALUES' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const created = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {} });
  precondition(created, 'create a run');
  expect(RUN_STATUSES, created.describe('status on create')).toContain(created.json.status);
  await join(agent, thread, created.json.run_id);
  const read = await agent.get<Run>(`/threads/${thread}/runs/${created.json.run_id}`);
  expectStatus(read, 200);
  expect(RUN_STATUSES, read.describe('status after join')).toContain(read.json.status);
});

test('run-creating answers carry Content-Location /threads/{thread_id}/runs/{run_id} (stateless: /runs/{run_id})', { tag: '@RUN-CONTENT-LOCATION' }, async ({
  agent,
}) => {
  const thread = await newThread(agent);
  const created = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {} });
  precondition(created, 'create a run');
  expect(created.headers['content-location'], created.describe('create')).toBe(`/threads/${thread}/runs/${created.json.run_id}`);
  // A real server may still be running the first run: let it end before the next one.
  await join(agent, thread, created.json.run_id);
  const waited = await agent.post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: {} });
  precondition(waited, 'wait for a run');
  expect(waited.headers['content-location'] ?? '', waited.describe('wait')).toMatch(new RegExp(`^/threads/${thread}/runs/[0-9a-f-]{36}$`));
  const stateless = await agent.post('/runs/wait', { assistant_id: 'agent', input: {} });
  precondition(stateless, 'a stateless wait');
  expect(stateless.headers['content-location'] ?? '', stateless.describe('stateless wait')).toMatch(/^(\/threads\/[0-9a-f-]{36})?\/runs\/[0-9a-f-]{36}$/);
  // Streams create runs too, and their headers come before any event.
  const streamed = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {} });
  precondition(streamed, 'stream a run');
  expect(streamed.headers['content-location'] ?? '', streamed.describe('stream')).toMatch(new RegExp(`^/threads/${thread}/runs/[0-9a-f-]{36}$`));
  const statelessStream = await agent.post('/runs/stream', { assistant_id: 'agent', input: {} });
  precondition(statelessStream, 'a stateless stream');
  expect(statelessStream.headers['content-location'] ?? '', statelessStream.describe('stateless stream')).toMatch(
    /^(\/threads\/[0-9a-f-]{36})?\/runs\/[0-9a-f-]{36}$/,
  );
});

test('a completed run leaves its output in the thread: state and history include its checkpoints', {
  tag: ['@RUN-WRITES-THREAD-STATE', '@RUN-WRITES-THREAD-HISTORY'],
}, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'kept' } });
  await join(agent, thread, run.run_id);
  // The thread's own values are its current state values (§2.7): read before readState, which
  // skips a test where the two differ, so that a thread still showing its old values fails here.
  const own = await agent.get<{ values?: Record<string, unknown> | null }>(`/threads/${thread}`);
  precondition(own, 'read the thread');
  await forRule('RUN-WRITES-THREAD-STATE', () => expect(texts({ values: own.json.values ?? {} }), own.describe("the thread's values")).toContain('echo: kept'));
  const state = await readState(agent, thread);
  await forRule('RUN-WRITES-THREAD-STATE', () => expect(texts(state), 'state values').toContain('echo: kept'));
  const history = await agent.post<{ values: Record<string, unknown> }[]>(`/threads/${thread}/history`, { limit: 10 });
  preconditionArray(history, 'read the history');
  // How many checkpoints a run writes is the service's (LangGraph's), not the spec's.
  await forRule('RUN-WRITES-THREAD-HISTORY', () => expect(history.json.length, history.describe('several checkpoints written by the run')).toBeGreaterThan(1));
});

test('creating, streaming or waiting on a run of an unknown thread answers 404 and creates nothing', { tag: '@RUN-CREATE-UNKNOWN-THREAD-404' }, async ({
  agent,
}) => {
  for (const path of ['runs', 'runs/stream', 'runs/wait']) {
    expectJsonError(await agent.post(`/threads/${UNKNOWN}/${path}`, { assistant_id: 'agent', input: {} }), 404);
  }
  const created = await agent.get(`/threads/${UNKNOWN}`);
  expect(created.status >= 200 && created.status < 300, created.describe('the unknown thread was not created')).toBe(false);
});

test('an unknown assistant UUID answers 404, and an id that is neither a UUID nor a graph answers 422; no run is created', {
  tag: '@RUN-CREATE-UNKNOWN-ASSISTANT',
}, async ({ agent }) => {
  const { thread, runId } = await threadWithRun(agent);
  expectJsonError(await agent.post(`/threads/${thread}/runs`, { assistant_id: UNKNOWN, input: {} }), 404);
  expectJsonError(await agent.post(`/threads/${thread}/runs`, { assistant_id: 'no-such-graph', input: {} }), [404, 422]);
  await expectOnlyRun(agent, thread, runId, 'an unknown assistant');
});

test.describe('a bad run body answers 4xx with a JSON error body and creates no run', { tag: '@RUN-CREATE-BAD-INPUT' }, () => {
  const cases: [string, string][] = [
    ['malformed JSON', '{"assistant_id": "agent", "input": {'],
    ['no assistant_id', JSON.stringify({ input: {} })],
    ['assistant_id not a string', JSON.stringify({ assistant_id: 42, input: {} })],
    ['metadata not an object', JSON.stringify({ assistant_id: 'agent', metadata: 'x' })],
  ];
  for (const [name, body] of cases) {
    test(name, async ({ agent }) => {
      const { thread, runId } = await threadWithRun(agent);
      expectJsonError(await agent.post(`/threads/${thread}/runs`, undefined, { rawBody: body, headers: { 'content-type': 'application/json' } }));
      await expectOnlyRun(agent, thread, runId, name);
    });
  }
});
