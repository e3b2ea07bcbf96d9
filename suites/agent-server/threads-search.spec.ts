// §4.5: POST /threads/search filters, sorts and pages threads.
import fc from 'fast-check';
import { expect, test } from '../fixtures.ts';
import { expectJsonError, expectStatus, precondition } from '../checks/index.ts';
import type { ApiClient } from '../client.ts';
import { propertyParameters } from '../property.ts';

type Thread = { thread_id: string; status: string; created_at: string; updated_at: string; metadata: Record<string, unknown> };

async function createThreads(agent: ApiClient, scope: string, metadatas: Record<string, unknown>[]): Promise<Thread[]> {
  const threads: Thread[] = [];
  for (const metadata of metadatas) {
    const res = await agent.post<Thread>('/threads', { metadata: { ...metadata, apc_scope: scope } });
    precondition(res, 'create a thread');
    threads.push(res.json);
  }
  return threads;
}

const ids = (threads: Thread[]) => threads.map((t) => t.thread_id);

test('search answers an array of threads', { tag: '@THREAD-SEARCH-ARRAY' }, async ({ agent, scope }) => {
  const created = await createThreads(agent, scope, [{}, {}]);
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope } });
  expectStatus(res, 200);
  expect(Array.isArray(res.json), res.describe('an array')).toBe(true);
  expect(ids(res.json).sort(), res.describe('the threads of this test')).toEqual(ids(created).sort());
});

test('a status filter answers only threads with that status', { tag: '@THREAD-SEARCH-STATUS' }, async ({ agent, scope }) => {
  const created = await createThreads(agent, scope, [{}, {}]);
  const idle = await agent.post<Thread[]>('/threads/search', { status: 'idle', metadata: { apc_scope: scope } });
  expectStatus(idle, 200);
  expect(ids(idle.json).sort(), idle.describe('status idle finds the new (idle) threads')).toEqual(ids(created).sort());
  for (const status of ['busy', 'interrupted', 'error']) {
    const res = await agent.post<Thread[]>('/threads/search', { status, metadata: { apc_scope: scope } });
    expectStatus(res, 200);
    expect(res.json, res.describe(`status ${status} finds none of the idle threads`)).toEqual([]);
  }
});

test('a metadata filter answers only threads whose metadata contains every given pair', { tag: '@THREAD-SEARCH-METADATA' }, async ({ agent, scope }) => {
  const [red, blue, redBig] = await createThreads(agent, scope, [{ color: 'red' }, { color: 'blue' }, { color: 'red', size: 'big' }]);
  const reds = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, color: 'red' } });
  expectStatus(reds, 200);
  expect(ids(reds.json).sort(), reds.describe('color red')).toEqual(ids([red, redBig]).sort());
  const both = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, color: 'red', size: 'big' } });
  expectStatus(both, 200);
  expect(ids(both.json), both.describe('color red and size big')).toEqual([redBig.thread_id]);
  const none = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, color: 'green' } });
  expectStatus(none, 200);
  expect(none.json, none.describe('color green')).toEqual([]);
  expect(blue).toBeDefined();
});

test('limit caps the number of threads answered', { tag: '@THREAD-SEARCH-LIMIT' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}]);
  for (const limit of [1, 2, 3, 5]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, limit });
    expectStatus(res, 200);
    expect(res.json.length, res.describe(`limit ${limit} of 3 matching threads`)).toBe(Math.min(limit, 3));
  }
});

test('offset skips that many matching threads', { tag: '@THREAD-SEARCH-OFFSET' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}, {}]);
  const all = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc', limit: 10 });
  precondition(all, 'search every thread of the test');
  for (const offset of [0, 1, 3, 4]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc', limit: 10, offset });
    expectStatus(res, 200);
    expect(ids(res.json), res.describe(`offset ${offset}`)).toEqual(ids(all.json).slice(offset));
  }
});

test('sort_by orders the answer by thread_id, status, created_at or updated_at', { tag: '@THREAD-SEARCH-SORT' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}, {}]);
  for (const sortBy of ['thread_id', 'status', 'created_at', 'updated_at'] as const) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: sortBy, sort_order: 'asc', limit: 10 });
    expectStatus(res, 200);
    const keys = res.json.map((t) => String(t[sortBy]));
    expect(keys, res.describe(`ascending by ${sortBy}`)).toEqual([...keys].sort());
    expect(res.json.length, res.describe('every thread of the test')).toBe(4);
  }
});

test('sort_order accepts asc and desc and orders accordingly', { tag: '@THREAD-SEARCH-SORT-ORDER' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}, {}]);
  const asc = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc' });
  const desc = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'desc' });
  expectStatus(asc, 200);
  expectStatus(desc, 200);
  expect(ids(asc.json), asc.describe('asc by thread_id')).toEqual(ids(asc.json).sort());
  expect(ids(desc.json), desc.describe('desc is asc reversed')).toEqual([...ids(asc.json)].reverse());
});

test('which sort_order values a target accepts', { tag: '@THREAD-SEARCH-SORT-ORDER-VALUES' }, async ({ agent, scope, observe }) => {
  const answers: string[] = [];
  for (const value of ['asc', 'desc', 'ASC', 'ascending', 'up']) {
    const res = await agent.post('/threads/search', { metadata: { apc_scope: scope }, sort_order: value });
    answers.push(`${value} → ${res.status}`);
  }
  observe('THREAD-SEARCH-SORT-ORDER-VALUES', answers.join(', '));
});

test.describe('an invalid status, sort_by or limit answers 4xx with a JSON error body', { tag: '@THREAD-SEARCH-INVALID' }, () => {
  const cases: [string, Record<string, unknown>][] = [
    ['status bogus', { status: 'bogus' }],
    ['sort_by bogus', { sort_by: 'bogus' }],
    ['limit not an integer', { limit: 'ten' }],
    ['limit zero', { limit: 0 }],
    ['metadata not an object', { metadata: 'red' }],
  ];
  for (const [name, body] of cases) {
    test(name, async ({ agent }) => {
      expectJsonError(await agent.post('/threads/search', body));
    });
  }
});

test('for any set of threads, search answers exactly the matching threads in the requested order', { tag: ['@THREAD-SEARCH-METADATA', '@THREAD-SEARCH-SORT', '@THREAD-SEARCH-LIMIT', '@THREAD-SEARCH-OFFSET'] }, async ({ agent, scope }) => {
  const color = fc.constantFrom('red', 'blue', 'green');
  const query = fc.record({
    color: fc.option(color, { nil: undefined }),
    sortBy: fc.constantFrom('thread_id' as const, 'created_at' as const),
    order: fc.constantFrom('asc' as const, 'desc' as const),
    limit: fc.integer({ min: 1, max: 6 }),
    offset: fc.integer({ min: 0, max: 5 }),
  });
  let round = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(color, { minLength: 0, maxLength: 5 }), query, async (colors, q) => {
      const roundScope = `${scope}-${round++}`;
      const created = await createThreads(agent, roundScope, colors.map((c) => ({ color: c })));
      const metadata: Record<string, unknown> = { apc_scope: roundScope, ...(q.color ? { color: q.color } : {}) };
      const res = await agent.post<Thread[]>('/threads/search', { metadata, sort_by: q.sortBy, sort_order: q.order, limit: q.limit, offset: q.offset });
      expectStatus(res, 200);
      const matching = created.filter((t) => !q.color || t.metadata.color === q.color);
      // Threads created in one instant tie on created_at; compare that order as a multiset.
      const key = (t: Thread) => (q.sortBy === 'thread_id' ? t.thread_id : t.created_at);
      const sortedKeys = matching.map(key).sort();
      if (q.order === 'desc') sortedKeys.reverse();
      const expectedKeys = sortedKeys.slice(q.offset, q.offset + q.limit);
      expect(res.json.map(key), res.describe('keys in order')).toEqual(expectedKeys);
      const matchingIds = new Set(ids(matching));
      expect(res.json.every((t) => matchingIds.has(t.thread_id)), res.describe('only matching threads')).toBe(true);
    }),
    propertyParameters({ numRuns: 12 }),
  );
});
