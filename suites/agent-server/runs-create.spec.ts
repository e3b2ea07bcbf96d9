// §2.9, §3, §4.5: creating runs on a thread.
import { forRule, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectSchema, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { contract } from '../../specs/contract.ts';
import type { Assistant } from '../../specs/types/agent-server.ts';
import { ECHO, expectOnlyRun, join, newThread, onceShown, readState, startRun, texts, threadWithRun, type Run } from './runs-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RUN-STATUS-VALUES states the reference's list, which is the contract's RunStatus enum: read there, not restated.
const RUN_STATUSES: string[] = contract().runStatuses.values;

// The run answered is found where §4.5 shows a run's path, its join (when join answers is RUN-JOIN's
// to judge): no read the spec does not show is needed.
test('POST /threads/{thread_id}/runs creates a run and answers it with its run_id', { tag: '@RUN-CREATE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'create' }, multitask_strategy: 'enqueue' });
  expectStatus(res, '2xx');
  // The answer beyond run_id is not shown (§4.5): its other fields are RUN-SHAPE's.
  expect(typeof res.json.run_id, res.describe('run_id')).toBe('string');
  const joined = await agent.get(`/threads/${thread}/runs/${res.json.run_id}/join`);
  expectStatus(joined, '2xx');
});

/** The operations that take the create-run body (§4.5), by name, and their path (a new thread for the stateful ones). */
const CREATING: [string, (agent: ApiClient) => Promise<string>][] = [
  ['create run', async (agent) => `/threads/${await newThread(agent)}/runs`],
  ['stream run', async (agent) => `/threads/${await newThread(agent)}/runs/stream`],
  ['wait run', async (agent) => `/threads/${await newThread(agent)}/runs/wait`],
  ['stateless stream', async () => '/runs/stream'],
  ['stateless wait', async () => '/runs/wait'],
];

test.describe("a run's assistant_id accepts a graph id or an assistant UUID", { tag: '@RUN-CREATE-ASSISTANT-ID' }, () => {
  test('graph id', async ({ agent }) => {
    for (const [operation, path] of CREATING) {
      expectStatus(await agent.post(await path(agent), { assistant_id: 'agent', input: { topic: operation } }), '2xx');
    }
  });
  // The UUID comes from the assistants search, the one operation of §4.5 that answers assistants: the
  // graph's default assistant where the search names graphs (§2.10 shows no graph_id), else the first.
  test('assistant UUID', async ({ agent }) => {
    const search = await agent.post<Assistant[]>('/assistants/search', { limit: 100 });
    const assistants = preconditionArray(search, 'search the assistants', undefined, ['ASSISTANT-SEARCH', 'ASSISTANT-SEARCH-LIMIT']);
    const id = (assistants.find((a) => a?.graph_id === 'agent') ?? assistants[0])?.assistant_id;
    if (typeof id !== 'string' || !UUID.test(id)) {
      skipForPrecondition(`precondition failed: the search names no assistant by a UUID (${JSON.stringify(id)}), so none can be sent: ${search.describe()}`, [
        'ASSISTANT-SEARCH',
        'ASSISTANT-ID-UUID',
      ]);
    }
    for (const [operation, path] of CREATING) {
      const res = await agent.post<Run>(await path(agent), { assistant_id: id, input: { topic: operation } });
      expectStatus(res, '2xx');
    }
  });
});

/**
 * The rules whose failure explains a run-creating request whose run has not ended once it answered:
 * join answering early, wait answering early, a stream closing before the end; or a run writing nothing.
 */
const ENDED_BY: Record<string, string[]> = {
  'create run': ['RUN-JOIN', 'RUN-WRITES-THREAD-STATE'],
  'wait run': ['RUN-WAIT', 'RUN-WRITES-THREAD-STATE'],
  'stream run': ['STREAM-RUN', 'STREAM-SSE-CLOSE-AT-END', 'RUN-WRITES-THREAD-STATE'],
};
/** The rules that say a stateless run's answer holds the graph's output, in whatever format (§4.5 shows none). */
const ANSWERED_BY: Record<string, string[]> = { 'stateless stream': ['STREAM-STATELESS'], 'stateless wait': ['RUN-WAIT-STATELESS'] };

// The state of a stateful run's thread holds the input; a stateless run has no thread to read, so
// its answer must hold the graph's answer to the input. That the run has ended, and that its answer
// holds the graph's output at all, are the rules of the requests that wait or stream (ENDED_BY,
// ANSWERED_BY): the fixture graph's answer is `echo: <topic>`, and `echo: ` when it got no topic.
test.describe("a run's input object is passed to the graph", { tag: '@RUN-CREATE-INPUT' }, () => {
  for (const [operation, path] of CREATING) {
    test(operation, async ({ agent, time }) => {
      const at = await path(agent);
      const topic = `input of ${operation} reaches the graph`;
      const res = await agent.post<Run>(at, { assistant_id: 'agent', input: { topic } });
      expectStatus(res, '2xx');
      const thread = /^\/threads\/([^/]+)\//.exec(at)?.[1];
      if (!thread) {
        if (!res.text.includes(ECHO))
          skipForPrecondition(`precondition failed: the answer holds no output of the graph: ${res.describe()}`, ANSWERED_BY[operation]);
        expect(res.text, res.describe('the graph answered the input')).toContain(`${ECHO}${topic}`);
        return;
      }
      if (operation === 'create run') await join(agent, thread, res.json.run_id);
      // Read until the graph's answer shows (onceShown): an answer that came a moment early is its own rule's failure.
      const shown = await onceShown(
        time,
        () => agent.get<{ values?: Record<string, unknown> }>(`/threads/${thread}/state`),
        (read) => read.status === 200 && texts({ values: read.json?.values ?? {} }).some((t) => t.startsWith(ECHO)),
      );
      precondition(shown, 'read the thread state');
      if (!texts({ values: shown.json.values ?? {} }).some((t) => t.startsWith(ECHO))) {
        skipForPrecondition(`precondition failed: the thread holds no output of the graph after the run: ${shown.describe()}`, ENDED_BY[operation]);
      }
      const state = await readState(agent, thread);
      expect(state.values.topic, 'the input is in the state').toBe(topic);
      expect(texts(state), 'the graph answered the input').toContain(`${ECHO}${topic}`);
    });
  }
});

test('what a run answer holds beyond run_id', { tag: '@RUN-CREATE-OTHER-FIELDS' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const res = await agent.post<Record<string, unknown> | undefined>(`/threads/${thread}/runs`, {
    assistant_id: 'agent',
    input: {},
    metadata: { k: 'v' },
    config: { tags: ['t'] },
  });
  observe(
    'RUN-CREATE-OTHER-FIELDS',
    `status ${res.status}; fields: ${Object.keys(res.json ?? {})
      .sort()
      .join(', ')}`,
  );
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

// The run as created, as read and each run of a list: a server may build each answer apart,
// and leave fields out or give them other types there.
test('a run object has the fields of the reference Run', { tag: '@RUN-SHAPE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const created = await agent.post<Record<string, unknown>>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'shape' } });
  expectStatus(created, '2xx');
  const runId = String(created.json.run_id);
  await join(agent, thread, runId);
  const read = await agent.get<Record<string, unknown>>(`/threads/${thread}/runs/${runId}`);
  expectStatus(read, 200);
  const judge = (res: ApiResponse, value: Record<string, unknown>, as: string) => {
    // A field that is there but null holds nothing of what the reference's run carries.
    for (const field of ['run_id', 'thread_id', 'assistant_id', 'created_at', 'updated_at', 'status', 'metadata', 'kwargs', 'multitask_strategy']) {
      expect(value[field] ?? null, res.describe(`${as}: has ${field}`)).not.toBeNull();
    }
    expectSchema(res, 'agent-server', 'Run', value);
    expect(value.thread_id, res.describe(`${as}: thread_id`)).toBe(thread);
  };
  judge(created, created.json, 'as created');
  judge(read, read.json, 'as read');
  const list = await agent.get<Record<string, unknown>[]>(`/threads/${thread}/runs`);
  expectStatus(list, 200);
  expect(Array.isArray(list.json), list.describe('a list of runs')).toBe(true);
  // A list without the run is the list rule's failure; one that shows it is judged here.
  if (list.json.length === 0) skipForPrecondition(`precondition failed: the list shows no run of the thread: ${list.describe()}`, ['RUN-LIST']);
  for (const listed of list.json) judge(list, listed, 'as listed');
});

test('a run status is one of pending, running, error, success, timeout, interrupted', { tag: '@RUN-STATUS-VALUES' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const created = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {} });
  expectStatus(created, '2xx');
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
  expectStatus(created, '2xx');
  expect(created.headers['content-location'], created.describe('create')).toBe(`/threads/${thread}/runs/${created.json.run_id}`);
  // A real server may still be running the first run: let it end before the next one.
  await join(agent, thread, created.json.run_id);
  const waited = await agent.post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: {} });
  expectStatus(waited, '2xx');
  expect(waited.headers['content-location'] ?? '', waited.describe('wait')).toMatch(new RegExp(`^/threads/${thread}/runs/[0-9a-f-]{36}$`));
  const stateless = await agent.post('/runs/wait', { assistant_id: 'agent', input: {} });
  expectStatus(stateless, '2xx');
  expect(stateless.headers['content-location'] ?? '', stateless.describe('stateless wait')).toMatch(/^(\/threads\/[0-9a-f-]{36})?\/runs\/[0-9a-f-]{36}$/);
  // Streams create runs too, and their headers come before any event.
  const streamed = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {} });
  expectStatus(streamed, '2xx');
  expect(streamed.headers['content-location'] ?? '', streamed.describe('stream')).toMatch(new RegExp(`^/threads/${thread}/runs/[0-9a-f-]{36}$`));
  const statelessStream = await agent.post('/runs/stream', { assistant_id: 'agent', input: {} });
  expectStatus(statelessStream, '2xx');
  expect(statelessStream.headers['content-location'] ?? '', statelessStream.describe('stateless stream')).toMatch(
    /^(\/threads\/[0-9a-f-]{36})?\/runs\/[0-9a-f-]{36}$/,
  );
});

test('a completed run leaves its output in the thread: state and history include its checkpoints', {
  tag: ['@RUN-WRITES-THREAD-STATE', '@RUN-WRITES-THREAD-HISTORY'],
}, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'kept' } });
  await join(agent, thread, run.run_id);
  // The thread's own values are its current state values (§2.7): read before readState, which
  // skips a test where the two differ, so that a thread still showing its old values fails here.
  // They are read until they show the run's output (onceShown): a join that answered early is RUN-JOIN's failure.
  const own = await onceShown(
    time,
    () => agent.get<{ values?: Record<string, unknown> | null }>(`/threads/${thread}`),
    (res) => res.status === 200 && texts({ values: res.json?.values ?? {} }).includes('echo: kept'),
  );
  precondition(own, 'read the thread');
  await forRule('RUN-WRITES-THREAD-STATE', () => expect(texts({ values: own.json.values ?? {} }), own.describe("the thread's values")).toContain('echo: kept'));
  const state = await readState(agent, thread);
  await forRule('RUN-WRITES-THREAD-STATE', () => expect(texts(state), 'state values').toContain('echo: kept'));
  const history = await agent.post<{ values: Record<string, unknown> }[]>(`/threads/${thread}/history`, { limit: 10 });
  // How many checkpoints a run writes is the service's (LangGraph's), not the spec's.
  await forRule('RUN-WRITES-THREAD-HISTORY', () => {
    expectStatus(history, 200);
    expect(Array.isArray(history.json) ? history.json.length : 0, history.describe('several checkpoints written by the run')).toBeGreaterThan(1);
  });
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
