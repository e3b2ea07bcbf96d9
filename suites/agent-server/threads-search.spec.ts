// §4.5: POST /threads/search filters, sorts and pages threads.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import { forRule, skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { assertProperty } from '../../harness/property.ts';
import type { Time } from '../../harness/time.ts';
import type { Thread } from '../../specs/types/agent-server.ts';
import { join, longRun, startRun } from './runs-steps.ts';

type SortKey = 'thread_id' | 'status' | 'created_at' | 'updated_at';
const SORT_KEYS: SortKey[] = ['thread_id', 'status', 'created_at', 'updated_at'];

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

/**
 * Eight threads of the scope, two of each status, whose keys order them differently: created one
 * after another, then runs give them their status and move their updated_at out of creation
 * order. By creation: idle, error (a failed run), idle (a later run), interrupted (a run stopped
 * before its last node), busy (a run in progress until `release`), error, interrupted, busy.
 * Two of each keep statuses from falling side by side in another key's order by chance.
 */
async function threadsOfEveryStatus(agent: ApiClient, time: Time, scope: string): Promise<{ threads: Thread[]; release: () => Promise<void> }> {
  const made: string[] = [];
  for (let i = 0; i < 8; i++) {
    made.push((await createThreads(agent, scope, [{ apc_nth: i }]))[0].thread_id);
    await time.pass(50);
  }
  const runs = [
    [1, { fail: true }],
    [2, { topic: 'later' }],
    [3, { interrupt: true }],
    [5, { fail: true }],
    [6, { interrupt: true }],
  ] as const;
  for (const [nth, input] of runs) {
    const run = await startRun(agent, made[nth], { input });
    await join(agent, made[nth], run.run_id);
    await time.pass(50);
  }
  const busy = [await longRun(agent, time, made[4]), await longRun(agent, time, made[7])];
  const release = async () => {
    await time.pass(time.hold);
    for (const run of busy) await join(agent, run.thread_id!, run.run_id);
  };
  // As the search itself reports them: its filter and order are judged against its own values.
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, limit: 10 });
  return { threads: preconditionArray(res, 'search the eight threads', 8), release };
}

const sortValue = (thread: Thread, key: SortKey): string | number =>
  key === 'created_at' || key === 'updated_at' ? Date.parse(thread[key]) : String(thread[key]);

/**
 * Whether the list is ordered by the key, in either direction (the direction is sort_order's
 * rule). Statuses have no documented order: equal ones must only be side by side.
 */
function orderedBy(list: Thread[], key: SortKey): boolean {
  const values = list.map((t) => sortValue(t, key));
  if (key === 'status') return values.every((v, i) => i === 0 || v === values[i - 1] || !values.slice(0, i - 1).includes(v));
  const rising = values.every((v, i) => i === 0 || values[i - 1] <= v);
  const falling = values.every((v, i) => i === 0 || values[i - 1] >= v);
  return rising || falling;
}

/** A key whose order these threads could also take while ordered by `key` (its check would then not tell them apart), if any. */
function lookalike(threads: Thread[], key: SortKey): SortKey | undefined {
  const compare = (a: Thread, b: Thread, k: SortKey) => (sortValue(a, k) < sortValue(b, k) ? -1 : sortValue(a, k) > sortValue(b, k) ? 1 : 0);
  return SORT_KEYS.filter((other) => other !== key).find((other) =>
    [1, -1].some((dir) =>
      [1, -1].some((tie) =>
        orderedBy(
          [...threads].sort((a, b) => dir * compare(a, b, other) || tie * compare(a, b, key)),
          key,
        ),
      ),
    ),
  );
}

// Each item is the thread as it is: a list that answers a cached status or leaves out the values
// (an empty object is a valid type) would still be "an array of threads" by shape alone. The
// threads differ in status and values: an empty one, a prepopulated one, one whose run failed.
// Each is compared with its own read, where that read shows what the thread must hold (else the
// read is the one wrong, and other rules judge it).
test('search answers an array of threads, each as GET /threads/{thread_id} reads it', { tag: '@THREAD-SEARCH-ARRAY' }, async ({ agent, scope }) => {
  const [empty] = await createThreads(agent, scope, [{}]);
  const prepopulated = await agent.post<Thread>('/threads', {
    metadata: { graph_id: 'agent', apc_scope: scope },
    supersteps: [{ updates: [{ values: { topic: 'listed' }, as_node: 'prepare' }] }],
  });
  precondition(prepopulated, 'create a thread with supersteps');
  const [failed] = await createThreads(agent, scope, [{ graph_id: 'agent' }]);
  await join(agent, failed.thread_id, (await startRun(agent, failed.thread_id, { input: { fail: true } })).run_id);
  // What each thread must read: its status, and its values where they are known.
  const expected: [Thread, string, Record<string, unknown> | undefined][] = [
    [empty, 'idle', {}],
    [prepopulated.json, 'idle', { topic: 'listed' }],
    [failed, 'error', undefined],
  ];
  const reads: Record<string, Thread> = {};
  for (const [created, status, values] of expected) {
    const read = await agent.get<Thread>(`/threads/${created.thread_id}`);
    precondition(read, 'read the thread');
    const known =
      read.json.created_at === created.created_at &&
      read.json.metadata?.apc_scope === scope &&
      read.json.status === status &&
      (values === undefined || (isDeepStrictEqual(values, {}) ? isDeepStrictEqual(read.json.values, {}) : read.json.values?.topic === values.topic));
    if (!known)
      skipForPrecondition(`precondition failed: the thread does not read as made (status ${status}, values ${JSON.stringify(values)}): ${read.describe()}`);
    reads[created.thread_id] = read.json;
  }
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope } });
  expectStatus(res, '2xx');
  expect(Array.isArray(res.json), res.describe('an array')).toBe(true);
  expect(ids(res.json).sort(), res.describe('the threads of this test')).toEqual(Object.keys(reads).sort());
  for (const item of res.json) {
    const read = reads[item.thread_id];
    for (const field of ['thread_id', 'created_at', 'metadata', 'status'] as const) {
      expect(item[field], res.describe(`${field} of thread ${item.thread_id} as GET reads it`)).toEqual(read[field]);
    }
    if (expected.find(([t]) => t.thread_id === item.thread_id)?.[2] !== undefined) {
      expect(item.values, res.describe(`values of thread ${item.thread_id} as GET reads them`)).toEqual(read.values);
    }
  }
});

// Idle threads alone would let a filter that answers nothing for the other statuses pass.
test('a status filter answers only threads with that status', { tag: '@THREAD-SEARCH-STATUS' }, async ({ agent, scope, time }) => {
  const { threads, release } = await threadsOfEveryStatus(agent, time, scope);
  // Each filter is judged against the statuses the unfiltered search gives (THREAD-STATUS-* judge those).
  const found = new Set(threads.map((t) => t.status));
  if (found.size < 2) skipForPrecondition(`precondition failed: the threads read only ${[...found].join(', ')}, so no filter can leave any out`);
  const answers: [string, ApiResponse<Thread[]>][] = [];
  for (const status of ['idle', 'busy', 'interrupted', 'error']) {
    const res = await agent.post<Thread[]>('/threads/search', { status, metadata: { apc_scope: scope } });
    preconditionArray(res, `search status ${status}`);
    answers.push([status, res]);
  }
  // A run that ends between two searches moves its thread (a real target's runs take time): the sets are judged
  // only when every thread kept its status through the searches.
  const again = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, limit: 10 });
  for (const t of preconditionArray(again, 'search the eight threads again', 8)) {
    const before = threads.find((b) => b.thread_id === t.thread_id)?.status;
    if (t.status !== before) skipForPrecondition(`precondition failed: thread ${t.thread_id} went from ${before} to ${t.status} during the searches`);
  }
  for (const [status, res] of answers) {
    expect(ids(res.json).sort(), res.describe(`status ${status}`)).toEqual(ids(threads.filter((t) => t.status === status)).sort());
  }
  await release();
});

test('a metadata filter answers only threads whose metadata contains every given pair', { tag: '@THREAD-SEARCH-METADATA' }, async ({ agent, scope }) => {
  const [red, blue, redBig] = await createThreads(agent, scope, [{ color: 'red' }, { color: 'blue' }, { color: 'red', size: 'big' }]);
  const reds = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, color: 'red' } });
  preconditionArray(reds, 'search');
  expect(ids(reds.json).sort(), reds.describe('color red')).toEqual(ids([red, redBig]).sort());
  const both = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, color: 'red', size: 'big' } });
  expectStatus(both, '2xx');
  expect(ids(both.json), both.describe('color red and size big')).toEqual([redBig.thread_id]);
  const none = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, color: 'green' } });
  expectStatus(none, '2xx');
  expect(none.json, none.describe('color green')).toEqual([]);
  expect(blue).toBeDefined();
});

// Metadata values are any JSON (§2.7): a filter must compare numbers, booleans and objects too,
// not only strings. Each filter below matches one of two threads that differ in that key alone.
test('a metadata filter compares numbers, booleans and nested objects, not only strings', { tag: '@THREAD-SEARCH-METADATA' }, async ({ agent, scope }) => {
  const [one, two] = await createThreads(agent, scope, [
    { n: 1, flag: true, nested: { level: 1, tags: ['a'] } },
    { n: 2, flag: false, nested: { level: 2, tags: ['b'] } },
  ]);
  const filters: [Record<string, unknown>, Thread][] = [
    [{ n: 1 }, one],
    [{ n: 2 }, two],
    [{ flag: true }, one],
    [{ flag: false }, two],
    [{ nested: { level: 2, tags: ['b'] } }, two],
  ];
  for (const [filter, expected] of filters) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope, ...filter } });
    preconditionArray(res, 'search');
    expect(ids(res.json), res.describe(`metadata ${JSON.stringify(filter)}`)).toEqual([expected.thread_id]);
  }
});

test('limit caps the number of threads answered', { tag: '@THREAD-SEARCH-LIMIT' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}]);
  for (const limit of [1, 2, 3, 5]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, limit });
    preconditionArray(res, 'search');
    expect(res.json.length, res.describe(`limit ${limit} of 3 matching threads`)).toBe(Math.min(limit, 3));
  }
});

test('offset skips that many matching threads', { tag: '@THREAD-SEARCH-OFFSET' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}, {}]);
  const all = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc', limit: 10 });
  preconditionArray(all, 'search every thread of the test', 4);
  for (const offset of [0, 1, 3, 4]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc', limit: 10, offset });
    preconditionArray(res, 'search');
    expect(ids(res.json), res.describe(`offset ${offset}`)).toEqual(ids(all.json).slice(offset));
  }
  // offset stands on its own: without limit (the default, 10, exceeds these 4 threads) it still skips.
  for (const offset of [1, 3]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc', offset });
    preconditionArray(res, 'search');
    expect(ids(res.json), res.describe(`offset ${offset} without limit`)).toEqual(ids(all.json).slice(offset));
  }
});

// Threads that share a status and timestamps would let any order pass as an order by them.
test('sort_by orders the answer by thread_id, status, created_at or updated_at', { tag: '@THREAD-SEARCH-SORT' }, async ({ agent, scope, time }) => {
  const { threads, release } = await threadsOfEveryStatus(agent, time, scope);
  for (const sortBy of SORT_KEYS) {
    const twin = lookalike(threads, sortBy);
    if (twin) {
      const keys = JSON.stringify(threads.map((t) => [t.thread_id, t.status, t.created_at, t.updated_at]));
      skipForPrecondition(`precondition failed: an order of these threads by ${twin} is also one by ${sortBy}, so the answer cannot show which: ${keys}`);
    }
  }
  for (const sortBy of SORT_KEYS) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: sortBy, sort_order: 'asc', limit: 10 });
    const answered = preconditionArray(res, 'search', 8);
    // The answer's own values are judged: a thread that changed meanwhile still has to be in place.
    expect(orderedBy(answered, sortBy), res.describe(`ordered by ${sortBy}: ${answered.map((t) => t[sortBy]).join(', ')}`)).toBe(true);
  }
  await release();
});

test('sort_order accepts asc and desc and orders accordingly', { tag: '@THREAD-SEARCH-SORT-ORDER' }, async ({ agent, scope }) => {
  await createThreads(agent, scope, [{}, {}, {}, {}]);
  const asc = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'asc' });
  const desc = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'thread_id', sort_order: 'desc' });
  expectStatus(asc, 200);
  expectStatus(desc, 200);
  preconditionArray(asc, 'search ascending', 4);
  preconditionArray(desc, 'search descending', 4);
  const sorted = [...ids(asc.json)].sort();
  test.skip(
    ![sorted.join(), [...sorted].reverse().join()].includes(ids(asc.json).join()),
    `precondition failed: sort_by thread_id does not order the answer: ${asc.describe()}`,
  );
  expect(ids(asc.json), asc.describe('asc: ascending by thread_id')).toEqual(sorted);
  expect(ids(desc.json), desc.describe('desc: descending by thread_id')).toEqual([...sorted].reverse());
});

// sort_order applies to every sort key, not only thread_id: by creation time, the threads made
// one after another come oldest first under asc and newest first under desc.
test('sort_order orders by created_at too', { tag: '@THREAD-SEARCH-SORT-ORDER' }, async ({ agent, scope, time }) => {
  const made: Thread[] = [];
  for (let i = 0; i < 3; i++) {
    made.push(...(await createThreads(agent, scope, [{ apc_nth: i }])));
    await time.pass(50);
  }
  if (new Set(made.map((t) => Date.parse(t.created_at))).size !== made.length) {
    skipForPrecondition(`precondition failed: threads made one after another share a created_at: ${made.map((t) => t.created_at).join(', ')}`);
  }
  for (const [order, expected] of [
    ['asc', ids(made)],
    ['desc', ids(made).reverse()],
  ] as const) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_scope: scope }, sort_by: 'created_at', sort_order: order });
    preconditionArray(res, `search by created_at ${order}`, 3);
    expect(ids(res.json), res.describe(`created_at ${order}`)).toEqual(expected);
  }
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

// Order itself is judged by the dedicated sort tests: with two threads, a wrong key and a
// wrong direction look the same, so a shrunk counterexample could not say which rule broke.
test('for any set of threads and page, search answers exactly the matching threads, paged in its own order', {
  tag: ['@THREAD-SEARCH-METADATA', '@THREAD-SEARCH-LIMIT', '@THREAD-SEARCH-OFFSET'],
}, async ({ agent, scope }) => {
  const color = fc.constantFrom('red', 'blue', 'green');
  const query = fc.record({
    color: fc.option(color, { nil: undefined }),
    sortBy: fc.constantFrom('thread_id' as const, 'created_at' as const),
    order: fc.constantFrom('asc' as const, 'desc' as const),
    limit: fc.integer({ min: 1, max: 6 }),
    offset: fc.integer({ min: 0, max: 5 }),
  });
  let round = 0;
  await assertProperty(
    fc.asyncProperty(fc.array(color, { minLength: 0, maxLength: 5 }), query, async (colors, q) => {
      const roundScope = `${scope}-${round++}`;
      const created = await createThreads(
        agent,
        roundScope,
        colors.map((c) => ({ color: c })),
      );
      const metadata: Record<string, unknown> = { apc_scope: roundScope, ...(q.color ? { color: q.color } : {}) };
      // The whole answer first (the filter is judged on it), then the page (limit and offset
      // are judged against the target's own order).
      const full = await agent.post<Thread[]>('/threads/search', { metadata, sort_by: q.sortBy, sort_order: q.order, limit: 100, offset: 0 });
      preconditionArray(full, 'search the whole round');
      const page = await agent.post<Thread[]>('/threads/search', { metadata, sort_by: q.sortBy, sort_order: q.order, limit: q.limit, offset: q.offset });
      preconditionArray(page, 'search one page');
      const matching = created.filter((t) => !q.color || t.metadata.color === q.color);
      await forRule('THREAD-SEARCH-METADATA', () => expect(ids(full.json).sort(), full.describe('exactly the matching threads')).toEqual(ids(matching).sort()));
      await forRule('THREAD-SEARCH-LIMIT', () => expect(page.json.length, page.describe(`at most limit ${q.limit}`)).toBeLessThanOrEqual(q.limit));
      await forRule('THREAD-SEARCH-OFFSET', () =>
        expect(ids(page.json), page.describe(`page offset ${q.offset} limit ${q.limit}`)).toEqual(ids(full.json).slice(q.offset, q.offset + q.limit)),
      );
    }),
    { numRuns: 12 },
  );
});
