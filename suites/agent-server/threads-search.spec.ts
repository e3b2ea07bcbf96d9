// §4.5: POST /threads/search filters, sorts and pages threads.
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { expect, test } from '../../harness/fixtures.ts';
import { expectArray, expectJsonError, precondition, preconditionArray } from '../../harness/checks/index.ts';
import { forRule, skipForMachine, skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { assertProperty } from '../../harness/property.ts';
import type { Time } from '../../harness/time.ts';
import { contract } from '../../specs/contract.ts';
import type { Thread, ThreadSearch } from '../../specs/types/agent-server.ts';
import { join, longRun, startRun } from './runs-steps.ts';
import { TEST_KEY_SEARCH } from './threads-steps.ts';

// The values the search takes for sort_by and status (the lists THREAD-SEARCH-SORT and THREAD-SEARCH-STATUS name), as the contract has them.
type SortKey = NonNullable<ThreadSearch['sort_by']>;
const SORT_KEYS = contract().enumOf('agent-server', 'ThreadSearch', 'sort_by') as SortKey[];
const THREAD_STATUSES = contract().enumOf('agent-server', 'ThreadSearch', 'status');

/** The rules whose failure explains threads whose runs did not give them the statuses (and times) intended. */
const STATUS_RULES = ['THREAD-STATUS-AFTER-RUN', 'THREAD-STATUS-BUSY-DURING-RUN', 'THREAD-SEARCH-ARRAY'];

async function createThreads(agent: ApiClient, testKey: string, metadatas: Record<string, unknown>[], threadIds: string[] = []): Promise<Thread[]> {
  const threads: Thread[] = [];
  for (const [i, metadata] of metadatas.entries()) {
    const named = threadIds[i] ? { thread_id: threadIds[i] } : {};
    const res = await agent.post<Thread>('/threads', { ...named, metadata: { ...metadata, apc_test: testKey } });
    precondition(res, 'create a thread');
    threads.push(res.json);
  }
  return threads;
}

const ids = (threads: Thread[]) => threads.map((t) => t.thread_id);

/**
 * Each thread's rank in id order, by creation: in id order the statuses read idle, busy,
 * interrupted, idle, busy, interrupted, error, error, and creation reads 2, 4, 6, 0, 7, 3, 1, 5.
 */
const ID_RANKS = [3, 6, 0, 5, 1, 7, 2, 4];

/**
 * Eight threads of the test, two of each status, whose keys order them differently: created one
 * after another, then runs give them their status and move their updated_at out of creation
 * order. By creation: idle, error (a failed run), idle (a later run), interrupted (a run stopped
 * before its last node), busy (a run in progress until `release`), error, interrupted, busy.
 * Two of each keep statuses from falling side by side in another key's order by chance, and their
 * ids are named (ID_RANKS), in an order no other key has: a target's random ids would fall in
 * status order about once in a hundred runs, leaving the sort unjudged.
 */
async function threadsOfEveryStatus(agent: ApiClient, time: Time, testKey: string): Promise<{ threads: Thread[]; release: () => Promise<void> }> {
  const made: string[] = [];
  // Unique to the test and the run (its test key), then the thread's rank in id order.
  const prefix = createHash('sha256').update(testKey).digest('hex');
  const id = (rank: number) => `${prefix.slice(0, 8)}-${prefix.slice(8, 12)}-4${prefix.slice(13, 16)}-8${prefix.slice(17, 20)}-${prefix.slice(20, 31)}${rank}`;
  for (let i = 0; i < 8; i++) {
    made.push((await createThreads(agent, testKey, [{ apc_nth: i }], [id(ID_RANKS[i]!)]))[0].thread_id);
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
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, limit: 10 });
  return { threads: preconditionArray(res, 'search the eight threads', 8, TEST_KEY_SEARCH), release };
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
// Each is compared with its own read; its values only where the read shows those it was made with
// (else the read is the one wrong, and other rules judge it).
test('search answers an array of threads, each as GET /threads/{thread_id} reads it', { tag: '@THREAD-SEARCH-ARRAY' }, async ({ agent, testKey }) => {
  const [empty] = await createThreads(agent, testKey, [{}]);
  const prepopulated = await agent.post<Thread>('/threads', {
    metadata: { graph_id: 'agent', apc_test: testKey },
    supersteps: [{ updates: [{ values: { topic: 'listed' }, as_node: 'prepare' }] }],
  });
  precondition(prepopulated, 'create a thread with supersteps');
  const [failed] = await createThreads(agent, testKey, [{ graph_id: 'agent' }]);
  await join(agent, failed.thread_id, (await startRun(agent, failed.thread_id, { input: { fail: true } })).run_id);
  const made: [Thread, (values: Thread['values']) => boolean][] = [
    [empty, (values) => isDeepStrictEqual(values, {})],
    [prepopulated.json, (values) => values?.topic === 'listed'],
    [failed, () => false],
  ];
  const reads: Record<string, Thread> = {};
  const valuesShown = new Set<string>();
  for (const [created, asMade] of made) {
    const read = await agent.get<Thread>(`/threads/${created.thread_id}`);
    precondition(read, 'read the thread');
    reads[created.thread_id] = read.json;
    if (asMade(read.json.values)) valuesShown.add(created.thread_id);
  }
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey } });
  expect(ids(expectArray(res, 'search')).sort(), res.describe('the threads of this test')).toEqual(Object.keys(reads).sort());
  for (const item of res.json) {
    const read = reads[item.thread_id];
    for (const field of ['thread_id', 'created_at', 'metadata', 'status'] as const) {
      expect(item[field], res.describe(`${field} of thread ${item.thread_id} as GET reads it`)).toEqual(read[field]);
    }
    if (valuesShown.has(item.thread_id)) expect(item.values, res.describe(`values of thread ${item.thread_id} as GET reads them`)).toEqual(read.values);
  }
});

// Idle threads alone would let a filter that answers nothing for the other statuses pass.
test('a status filter answers only threads with that status', { tag: '@THREAD-SEARCH-STATUS' }, async ({ agent, testKey, time }) => {
  const { threads, release } = await threadsOfEveryStatus(agent, time, testKey);
  // Each filter is judged against the statuses the unfiltered search gives (THREAD-STATUS-* judge those).
  const found = new Set(threads.map((t) => t.status));
  if (found.size < 2) skipForPrecondition(`precondition failed: the threads read only ${[...found].join(', ')}, so no filter can leave any out`, STATUS_RULES);
  const answers: [string, ApiResponse<Thread[]>][] = [];
  for (const status of THREAD_STATUSES) {
    const res = await agent.post<Thread[]>('/threads/search', { status, metadata: { apc_test: testKey } });
    expectArray(res, `search status ${status}`);
    answers.push([status, res]);
  }
  // A run that ends between two searches moves its thread (a real target's runs take time): the sets are judged
  // only when every thread kept its status through the searches.
  const again = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, limit: 10 });
  for (const t of preconditionArray(again, 'search the eight threads again', 8, TEST_KEY_SEARCH)) {
    const before = threads.find((b) => b.thread_id === t.thread_id)?.status;
    skipForMachine(
      t.status !== before,
      `thread ${t.thread_id} went from ${before} to ${t.status} during the searches: its run did not last through them (raise timeouts.hold)`,
    );
  }
  for (const [status, res] of answers) {
    expect(ids(res.json).sort(), res.describe(`status ${status}`)).toEqual(ids(threads.filter((t) => t.status === status)).sort());
  }
  await release();
});

test('a metadata filter answers only threads whose metadata contains every given pair', { tag: '@THREAD-SEARCH-METADATA' }, async ({ agent, testKey }) => {
  const [red, blue, redBig] = await createThreads(agent, testKey, [{ color: 'red' }, { color: 'blue' }, { color: 'red', size: 'big' }]);
  const reds = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey, color: 'red' } });
  expect(ids(expectArray(reds, 'search')).sort(), reds.describe('color red')).toEqual(ids([red, redBig]).sort());
  const both = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey, color: 'red', size: 'big' } });
  expect(ids(expectArray(both, 'search')), both.describe('color red and size big')).toEqual([redBig.thread_id]);
  const none = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey, color: 'green' } });
  expect(expectArray(none, 'search'), none.describe('color green')).toEqual([]);
  expect(blue).toBeDefined();
});

// Metadata values are any JSON (§2.7): a filter must compare numbers, booleans and objects too,
// not only strings. Each filter below matches one of two threads that differ in that key alone.
test('a metadata filter compares numbers, booleans and nested objects, not only strings', { tag: '@THREAD-SEARCH-METADATA' }, async ({ agent, testKey }) => {
  const [one, two] = await createThreads(agent, testKey, [
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
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey, ...filter } });
    expect(ids(expectArray(res, 'search')), res.describe(`metadata ${JSON.stringify(filter)}`)).toEqual([expected.thread_id]);
  }
});

test('limit caps the number of threads answered', { tag: '@THREAD-SEARCH-LIMIT' }, async ({ agent, testKey }) => {
  await createThreads(agent, testKey, [{}, {}, {}]);
  for (const limit of [1, 2, 3, 5]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, limit });
    expect(expectArray(res, 'search').length, res.describe(`limit ${limit} of 3 matching threads`)).toBe(Math.min(limit, 3));
  }
});

test('offset skips that many matching threads', { tag: '@THREAD-SEARCH-OFFSET' }, async ({ agent, testKey }) => {
  await createThreads(agent, testKey, [{}, {}, {}, {}]);
  // Without offset, the order the offsets are judged in (a setup step, whose sort has rules of its own).
  const all = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: 'thread_id', sort_order: 'asc', limit: 10 });
  preconditionArray(all, 'search every thread of the test', 4, [...TEST_KEY_SEARCH, 'THREAD-SEARCH-SORT', 'THREAD-SEARCH-SORT-ORDER']);
  for (const offset of [0, 1, 3, 4]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: 'thread_id', sort_order: 'asc', limit: 10, offset });
    expect(ids(expectArray(res, 'search')), res.describe(`offset ${offset}`)).toEqual(ids(all.json).slice(offset));
  }
  // offset stands on its own: without limit (the default, 10, exceeds these 4 threads) it still skips.
  for (const offset of [1, 3]) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: 'thread_id', sort_order: 'asc', offset });
    expect(ids(expectArray(res, 'search')), res.describe(`offset ${offset} without limit`)).toEqual(ids(all.json).slice(offset));
  }
});

// Threads that share a status and timestamps would let any order pass as an order by them. A key
// whose order these threads could also take under another key (updated_at, where runs do not move
// it, orders them as created_at does) is still checked, but its pass tells the two keys apart no
// more: it is noted, and only when no key can be told apart is the rule left unjudged. No
// sort_order is sent: its values are not shown (§4.5), and the direction is its own rule's.
test('sort_by orders the answer by thread_id, status, created_at or updated_at', { tag: '@THREAD-SEARCH-SORT' }, async ({ agent, testKey, time }) => {
  const { threads, release } = await threadsOfEveryStatus(agent, time, testKey);
  const twins = SORT_KEYS.map((key) => [key, lookalike(threads, key)] as const).filter(([, twin]) => twin !== undefined);
  if (twins.length === SORT_KEYS.length) {
    const keys = JSON.stringify(threads.map((t) => [t.thread_id, t.status, t.created_at, t.updated_at]));
    skipForPrecondition(
      `precondition failed: for every key, an order of these threads by another key is also one by it (${twins.map(([k, t]) => `${k}: ${t}`).join(', ')}), so no answer can show which: ${keys}`,
      STATUS_RULES,
    );
  }
  for (const [key, twin] of twins) {
    test.info().annotations.push({
      type: 'note',
      description: `sort_by ${key}: these threads in ${twin} order are in ${key} order too, so its pass does not tell the two apart`,
    });
  }
  for (const sortBy of SORT_KEYS) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: sortBy, limit: 10 });
    const answered = expectArray(res, `search by ${sortBy}`, 8);
    // The answer's own values are judged: a thread that changed meanwhile still has to be in place.
    expect(orderedBy(answered, sortBy), res.describe(`ordered by ${sortBy}: ${answered.map((t) => t[sortBy]).join(', ')}`)).toBe(true);
  }
  await release();
});

test('sort_order accepts asc and desc and orders accordingly', { tag: '@THREAD-SEARCH-SORT-ORDER' }, async ({ agent, testKey }) => {
  await createThreads(agent, testKey, [{}, {}, {}, {}]);
  const asc = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: 'thread_id', sort_order: 'asc' });
  const desc = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: 'thread_id', sort_order: 'desc' });
  expectArray(asc, 'search ascending', 4);
  expectArray(desc, 'search descending', 4);
  const sorted = [...ids(asc.json)].sort();
  if (![sorted.join(), [...sorted].reverse().join()].includes(ids(asc.json).join())) {
    skipForPrecondition(`precondition failed: sort_by thread_id does not order the answer: ${asc.describe()}`, ['THREAD-SEARCH-SORT']);
  }
  expect(ids(asc.json), asc.describe('asc: ascending by thread_id')).toEqual(sorted);
  expect(ids(desc.json), desc.describe('desc: descending by thread_id')).toEqual([...sorted].reverse());
});

// sort_order applies to every sort key, not only thread_id: by creation time, the threads made
// one after another come oldest first under asc and newest first under desc.
test('sort_order orders by created_at too', { tag: '@THREAD-SEARCH-SORT-ORDER' }, async ({ agent, testKey, time }) => {
  const made: Thread[] = [];
  for (let i = 0; i < 3; i++) {
    made.push(...(await createThreads(agent, testKey, [{ apc_nth: i }])));
    await time.pass(50);
  }
  // Only a target whose clock is coarser than the spacing gives two the same creation time.
  skipForMachine(
    new Set(made.map((t) => Date.parse(t.created_at))).size !== made.length,
    `threads made 50 ms apart share a created_at, so their order by it is not defined: ${made.map((t) => t.created_at).join(', ')}`,
  );
  for (const [order, expected] of [
    ['asc', ids(made)],
    ['desc', ids(made).reverse()],
  ] as const) {
    const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey }, sort_by: 'created_at', sort_order: order });
    expect(ids(expectArray(res, `search by created_at ${order}`, 3)), res.describe(`created_at ${order}`)).toEqual(expected);
  }
});

test('which sort_order values a target accepts', { tag: '@THREAD-SEARCH-SORT-ORDER-VALUES' }, async ({ agent, testKey, observe }) => {
  const answers: string[] = [];
  for (const value of ['asc', 'desc', 'ASC', 'ascending', 'up']) {
    const res = await agent.post('/threads/search', { metadata: { apc_test: testKey }, sort_order: value });
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

const COLORS = fc.constantFrom('red', 'blue', 'green');
// At most 5 threads a round keep every answer without limit within the default page of 10 (THREAD-SEARCH-DEFAULTS).
const ROUND = fc.array(COLORS, { minLength: 0, maxLength: 5 });

// Each search carries one rule's generated input and is judged for that rule. The MUST rules and
// OFFSET (a SHOULD) are apart: a failure of one test's rule leaves its other rules unjudged.
test('for any set of threads, a color filter answers exactly the matching threads and a limit caps them', {
  tag: ['@THREAD-SEARCH-METADATA', '@THREAD-SEARCH-LIMIT'],
}, async ({ agent, testKey }) => {
  let round = 0;
  await assertProperty(
    fc.asyncProperty(ROUND, fc.option(COLORS, { nil: undefined }), fc.integer({ min: 1, max: 6 }), async (colors, color, limit) => {
      const roundKey = `${testKey}-${round++}`;
      const created = await createThreads(
        agent,
        roundKey,
        colors.map((c) => ({ color: c })),
      );
      const full = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: roundKey, ...(color ? { color } : {}) } });
      const matching = created.filter((t) => !color || t.metadata.color === color);
      await forRule('THREAD-SEARCH-METADATA', () =>
        expect(ids(expectArray(full, 'search by color')).sort(), full.describe('exactly the matching threads')).toEqual(ids(matching).sort()),
      );
      const limited = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: roundKey }, limit });
      await forRule('THREAD-SEARCH-LIMIT', () =>
        expect(expectArray(limited, 'search with a limit').length, limited.describe(`limit ${limit} of ${created.length}`)).toBe(
          Math.min(limit, created.length),
        ),
      );
    }),
    { numRuns: 12 },
  );
});

// The pages are judged in the order thread_id ascending, fixed, against the whole answer in it (a
// setup step: sort and limit have tests of their own).
test('for any set of threads and page, offset skips that many of them in the requested order', { tag: '@THREAD-SEARCH-OFFSET' }, async ({ agent, testKey }) => {
  let round = 0;
  await assertProperty(
    fc.asyncProperty(ROUND, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 5 }), async (colors, limit, offset) => {
      const roundKey = `${testKey}-${round++}`;
      const created = await createThreads(
        agent,
        roundKey,
        colors.map((c) => ({ color: c })),
      );
      const search = (body: Record<string, unknown>) =>
        agent.post<Thread[]>('/threads/search', { metadata: { apc_test: roundKey }, sort_by: 'thread_id', sort_order: 'asc', ...body });
      const whole = await search({ limit: 100 });
      const ordered = ids(preconditionArray(whole, 'search the round', created.length, [...TEST_KEY_SEARCH, 'THREAD-SEARCH-SORT', 'THREAD-SEARCH-SORT-ORDER']));
      const skipped = await search({ offset });
      expect(ids(expectArray(skipped, 'search with an offset')), skipped.describe(`offset ${offset}`)).toEqual(ordered.slice(offset));
      const page = await search({ limit, offset });
      expect(ids(expectArray(page, 'search one page')), page.describe(`page offset ${offset} limit ${limit}`)).toEqual(ordered.slice(offset, offset + limit));
    }),
    { numRuns: 12 },
  );
});
