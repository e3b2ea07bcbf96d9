// §2.7, §3, §4.5: creating threads.
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectSchema, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { Thread } from '../../specs/types/agent-server.ts';
import { copyOf, expectNoOtherThread, TEST_KEY_SEARCH } from './threads-steps.ts';

test('POST /threads with an empty object creates a thread and answers it', { tag: '@THREAD-CREATE-EMPTY' }, async ({ agent }) => {
  const res = await agent.post('/threads', {});
  expectStatus(res, '2xx');
  const thread = res.json as { thread_id?: unknown };
  expect(typeof thread?.thread_id, res.describe('the answer names the new thread')).toBe('string');
  const read = await agent.get(`/threads/${thread.thread_id}`);
  expectStatus(read, '2xx');
});

test('a thread created empty is idle', { tag: '@THREAD-CREATE-IDLE' }, async ({ agent }) => {
  const res = await agent.post('/threads', {});
  expectStatus(res, '2xx');
  expect((res.json as { status: unknown }).status, res.describe('status on create')).toBe('idle');
  const read = await agent.get(`/threads/${(res.json as { thread_id: string }).thread_id}`);
  precondition(read, 'read the thread');
  expect((read.json as { status: unknown }).status, read.describe('status on read')).toBe('idle');
});

// Metadata is an open object (§2.7: it "may hold graph_id"): a target may add keys of its own, so what was
// sent must be there, unchanged, beside whatever else the target keeps.
test('metadata given at creation is stored and answered unchanged', { tag: '@THREAD-CREATE-METADATA' }, async ({ agent, testKey }) => {
  const metadata = { apc_test: testKey, owner: 'alice', nested: { list: [1, 'two', null], flag: true }, count: 3 };
  const res = await agent.post('/threads', { metadata });
  expectStatus(res, '2xx');
  expect((res.json as { metadata: unknown }).metadata, res.describe('metadata on create')).toMatchObject(metadata);
  const read = await agent.get(`/threads/${(res.json as { thread_id: string }).thread_id}`);
  expectStatus(read, '2xx');
  expect((read.json as { metadata: unknown }).metadata, read.describe('metadata on read')).toMatchObject(metadata);
  // The same metadata beside supersteps (which need graph_id): one creation path must not keep less than the other.
  const withSteps = { ...metadata, graph_id: 'agent' };
  const prepopulated = await agent.post<Thread>('/threads', {
    metadata: withSteps,
    supersteps: [{ updates: [{ values: { topic: 'm' }, as_node: 'prepare' }] }],
  });
  expectStatus(prepopulated, '2xx');
  expect(prepopulated.json.metadata, prepopulated.describe('metadata on create with supersteps')).toMatchObject(withSteps);
  const readSteps = await agent.get<Thread>(`/threads/${prepopulated.json.thread_id}`);
  expectStatus(readSteps, '2xx');
  expect(readSteps.json.metadata, readSteps.describe('metadata on read, created with supersteps')).toMatchObject(withSteps);
});

test('graph_id set in the metadata of the raw request is kept', { tag: '@THREAD-CREATE-GRAPH-ID' }, async ({ agent }) => {
  const res = await agent.post('/threads', { metadata: { graph_id: 'agent' } });
  expectStatus(res, '2xx');
  expect((res.json as { metadata: { graph_id?: unknown } }).metadata?.graph_id, res.describe('metadata.graph_id on create')).toBe('agent');
  const read = await agent.get(`/threads/${(res.json as { thread_id: string }).thread_id}`);
  expectStatus(read, '2xx');
  expect((read.json as { metadata: { graph_id?: unknown } }).metadata?.graph_id, read.describe('metadata.graph_id on read')).toBe('agent');
});

test('a thread has every field of §2.7 with its type, on create, get, copy and search', { tag: '@THREAD-SHAPE' }, async ({ agent, testKey }) => {
  const created = await agent.post('/threads', { metadata: { apc_test: testKey } });
  expectSchema(created, 'agent-server', 'Thread');
  const id = (created.json as { thread_id: string }).thread_id;
  const read = await agent.get(`/threads/${id}`);
  expectSchema(read, 'agent-server', 'Thread');
  // The copy's answer has no format the spec shows (§4.5: "a new, independent thread"): the copy is read.
  expectSchema(await agent.get(`/threads/${await copyOf(agent, id)}`), 'agent-server', 'Thread');
  // The search must find the thread: every item of an empty answer would pass.
  const found = await agent.post<{ thread_id?: unknown }[]>('/threads/search', { metadata: { apc_test: testKey }, limit: 10 });
  const threads = preconditionArray(found, "search the test's threads", undefined, TEST_KEY_SEARCH);
  if (!threads.some((t) => t.thread_id === id))
    skipForPrecondition(`precondition failed: the search does not find the thread ${id}: ${found.describe()}`, TEST_KEY_SEARCH);
  for (const thread of threads) expectSchema(found, 'agent-server', 'Thread', thread);
});

test("an empty thread's values is an empty object", { tag: '@THREAD-VALUES-EMPTY' }, async ({ agent }) => {
  const res = await agent.post('/threads', {});
  expectStatus(res, '2xx');
  expect((res.json as { values?: unknown }).values, res.describe('values of an empty thread')).toEqual({});
});

test.describe('bad input is refused with a JSON error and creates nothing', { tag: '@THREAD-BAD-INPUT' }, () => {
  // The body carries the test key, so a wrongly created thread would be found by it; metadata
  // that is not an object cannot carry it, and there only the refusal is judged.
  const cases: [string, (testKey: string) => string, 'keyed' | 'unkeyed'][] = [
    ['malformed JSON', (testKey) => `{"metadata": {"apc_test": "${testKey}"}`, 'keyed'],
    ['metadata that is not an object', () => JSON.stringify({ metadata: 'not an object' }), 'unkeyed'],
    [
      'supersteps that are not an array',
      (testKey) => JSON.stringify({ metadata: { apc_test: testKey, graph_id: 'agent' }, supersteps: { updates: [] } }),
      'keyed',
    ],
    [
      'a superstep update without as_node',
      (testKey) => JSON.stringify({ metadata: { apc_test: testKey, graph_id: 'agent' }, supersteps: [{ updates: [{ values: {} }] }] }),
      'keyed',
    ],
    [
      'supersteps without a graph_id to apply them to',
      (testKey) => JSON.stringify({ metadata: { apc_test: testKey }, supersteps: [{ updates: [{ values: {}, as_node: 'prepare' }] }] }),
      'keyed',
    ],
    ['a JSON array instead of an object', (testKey) => JSON.stringify([{ metadata: { apc_test: testKey } }]), 'keyed'],
  ];
  for (const [name, body, keyed] of cases) {
    test(`${name} answers 4xx`, async ({ agent, testKey }) => {
      const res = await agent.post('/threads', undefined, { rawBody: body(testKey), headers: { 'content-type': 'application/json' } });
      expectJsonError(res);
      if (keyed === 'unkeyed') return;
      await expectNoOtherThread(agent, testKey, name);
    });
  }
});
