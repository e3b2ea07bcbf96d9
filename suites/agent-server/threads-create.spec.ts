// §2.7, §3, §4.5: creating threads.
import { expect, test } from '../fixtures.ts';
import { expectJsonError, expectSchema, expectStatus, precondition, preconditionArray } from '../checks/index.ts';

test('POST /threads with an empty object creates a thread and answers it', { tag: '@THREAD-CREATE-EMPTY' }, async ({ agent }) => {
  const res = await agent.post('/threads', {});
  expectStatus(res, [200, 201]);
  const thread = res.json as { thread_id?: unknown };
  expect(typeof thread?.thread_id, res.describe('the answer names the new thread')).toBe('string');
  const read = await agent.get(`/threads/${thread.thread_id}`);
  expect(read.status, read.describe('the created thread can be read back')).toBe(200);
});

test('a thread created empty is idle', { tag: '@THREAD-CREATE-IDLE' }, async ({ agent }) => {
  const res = await agent.post('/threads', {});
  precondition(res, 'create a thread');
  expect((res.json as { status: unknown }).status, res.describe('status on create')).toBe('idle');
  const read = await agent.get(`/threads/${(res.json as { thread_id: string }).thread_id}`);
  precondition(read, 'read the thread');
  expect((read.json as { status: unknown }).status, read.describe('status on read')).toBe('idle');
});

test('metadata given at creation is stored and answered unchanged', { tag: '@THREAD-CREATE-METADATA' }, async ({ agent, scope }) => {
  const metadata = { apc_scope: scope, owner: 'alice', nested: { list: [1, 'two', null], flag: true }, count: 3 };
  const res = await agent.post('/threads', { metadata });
  expectStatus(res, [200, 201]);
  expect((res.json as { metadata: unknown }).metadata, res.describe('metadata on create')).toEqual(metadata);
  const read = await agent.get(`/threads/${(res.json as { thread_id: string }).thread_id}`);
  expectStatus(read, 200);
  expect((read.json as { metadata: unknown }).metadata, read.describe('metadata on read')).toEqual(metadata);
});

test('graph_id set in the metadata of the raw request is kept', { tag: '@THREAD-CREATE-GRAPH-ID' }, async ({ agent }) => {
  const res = await agent.post('/threads', { metadata: { graph_id: 'agent' } });
  expectStatus(res, [200, 201]);
  expect((res.json as { metadata: { graph_id?: unknown } }).metadata?.graph_id, res.describe('metadata.graph_id on create')).toBe('agent');
  const read = await agent.get(`/threads/${(res.json as { thread_id: string }).thread_id}`);
  expectStatus(read, 200);
  expect((read.json as { metadata: { graph_id?: unknown } }).metadata?.graph_id, read.describe('metadata.graph_id on read')).toBe('agent');
});

test('a thread has every field of §2.7 with its type, on create, get, copy and search', { tag: '@THREAD-SHAPE' }, async ({ agent, scope }) => {
  const created = await agent.post('/threads', { metadata: { apc_scope: scope } });
  expectSchema(created, 'agent-server', 'Thread');
  const id = (created.json as { thread_id: string }).thread_id;
  const read = await agent.get(`/threads/${id}`);
  expectSchema(read, 'agent-server', 'Thread');
  const copy = await agent.post(`/threads/${id}/copy`);
  expectSchema(copy, 'agent-server', 'Thread');
  const found = await agent.post<unknown[]>('/threads/search', { metadata: { apc_scope: scope }, limit: 10 });
  for (const thread of preconditionArray(found, 'search the test scope')) expectSchema(found, 'agent-server', 'Thread', thread);
});

test("an empty thread's values is an empty object", { tag: '@THREAD-VALUES-EMPTY' }, async ({ agent }) => {
  const res = await agent.post('/threads', {});
  precondition(res, 'create a thread');
  expect((res.json as { values?: unknown }).values, res.describe('values of an empty thread')).toEqual({});
});

test.describe('bad input is refused with a JSON error and creates nothing', { tag: '@THREAD-BAD-INPUT' }, () => {
  // Where the body can carry the test's scope, a wrongly created thread would be found by it.
  const cases: [string, (scope: string) => string][] = [
    ['malformed JSON', (scope) => `{"metadata": {"apc_scope": "${scope}"}`],
    ['metadata that is not an object', () => JSON.stringify({ metadata: 'not an object' })],
    ['supersteps that are not an array', (scope) => JSON.stringify({ metadata: { apc_scope: scope, graph_id: 'agent' }, supersteps: { updates: [] } })],
    ['a superstep update without as_node', (scope) => JSON.stringify({ metadata: { apc_scope: scope, graph_id: 'agent' }, supersteps: [{ updates: [{ values: {} }] }] })],
    ['supersteps without a graph_id to apply them to', (scope) => JSON.stringify({ metadata: { apc_scope: scope }, supersteps: [{ updates: [{ values: {}, as_node: 'prepare' }] }] })],
    ['a JSON array instead of an object', () => '[]'],
  ];
  for (const [name, body] of cases) {
    test(`${name} answers 4xx`, async ({ agent, scope }) => {
      const res = await agent.post('/threads', undefined, { rawBody: body(scope), headers: { 'content-type': 'application/json' } });
      expectJsonError(res);
      const after = await agent.post<unknown[]>('/threads/search', { metadata: { apc_scope: scope } });
      preconditionArray(after, 'search the test scope');
      expect(after.json, after.describe('no thread was created')).toEqual([]);
    });
  }
});
