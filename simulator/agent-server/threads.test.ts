// The thread store alone, without HTTP: creation (empty and with supersteps), get, search with
// its filters, paging and sorting, copy, state, history and delete, and the refusals of each.
// The suites check the same rules over HTTP; here each rule is pinned where it is implemented.
import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
import { refusalOf } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import type { Superstep, Thread } from '../../specs/types/agent-server.ts';
import { ThreadStore } from './threads.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

function store() {
  const clock = new VirtualClock();
  return { clock, threads: new ThreadStore({ clock, ids: new IdGenerator('threads') }) };
}

/** One superstep of a single update. */
const step = (as_node: string, values: Record<string, unknown>): Superstep => ({ updates: [{ values, as_node }] });
const human = (content: string) => ({ role: 'human', content });
const ids = (threads: Thread[]) => threads.map((t) => t.thread_id);

test('a thread created empty is idle, has empty values and keeps its metadata', () => {
  // THREAD-CREATE-EMPTY, THREAD-CREATE-IDLE, THREAD-VALUES-EMPTY, THREAD-CREATE-METADATA, THREAD-GET
  const { clock, threads } = store();
  clock.advance(1500);
  const metadata = { graph_id: 'agent', owner: { team: 'unit' } };
  const created = threads.create({ metadata });
  expect(created).toEqual({
    thread_id: expect.stringMatching(UUID),
    created_at: '2026-01-01T00:00:01.500Z',
    updated_at: '2026-01-01T00:00:01.500Z',
    metadata: { graph_id: 'agent', owner: { team: 'unit' } },
    status: 'idle',
    config: {},
    values: {},
  });
  expect(threads.get(created.thread_id)).toEqual(created);
  expect(threads.create({}).metadata).toEqual({});

  metadata.owner.team = 'changed by the caller';
  created.metadata.graph_id = 'changed in the answer';
  expect(threads.get(created.thread_id).metadata, 'the store shares no object with its callers').toEqual({ graph_id: 'agent', owner: { team: 'unit' } });
});

test('an empty thread has a state without checkpoint and an empty history', () => {
  const { threads } = store();
  const { thread_id } = threads.create({ metadata: { graph_id: 'agent' } });
  expect(threads.state(thread_id)).toEqual({
    values: {},
    next: [],
    tasks: [],
    metadata: { thread_id, checkpoint_id: null, graph_id: 'agent', source: null, step: null, writes: null, parents: {} },
    created_at: null,
    checkpoint: null,
    parent_checkpoint: null,
    checkpoint_id: null,
    parent_checkpoint_id: null,
  });
  expect(threads.history(thread_id)).toEqual([]);
});

test('supersteps prepopulate the thread: one checkpoint each, chained to its parent, values combined by the graph', () => {
  // THREAD-CREATE-SUPERSTEPS, THREAD-SUPERSTEPS-SHAPE, THREAD-SUPERSTEPS-HISTORY, THREAD-STATE-SHAPE
  const { threads } = store();
  const thread = threads.create({
    metadata: { graph_id: 'agent' },
    supersteps: [
      step('__input__', { messages: [human('hi')], topic: 'first' }),
      step('prepare', { messages: [{ role: 'ai', content: 'prepared' }], topic: 'second' }),
    ],
  });
  const expected = { messages: [human('hi'), { role: 'ai', content: 'prepared' }], topic: 'second' };
  expect(thread.status).toBe('idle');
  expect(thread.values, 'messages append, other keys are replaced').toEqual(expected);
  expect(threads.get(thread.thread_id).values).toEqual(expected);

  const [latest, input] = threads.history(thread.thread_id);
  expect(threads.history(thread.thread_id)).toHaveLength(2);
  expect(input).toMatchObject({
    values: { messages: [human('hi')], topic: 'first' },
    next: ['prepare'],
    tasks: [{ id: `${input.checkpoint_id}:0`, name: 'prepare', error: null, interrupts: [] }],
    metadata: {
      thread_id: thread.thread_id,
      checkpoint_id: input.checkpoint_id,
      graph_id: 'agent',
      source: 'input',
      step: -1,
      writes: { __input__: { messages: [human('hi')], topic: 'first' } },
      parents: {},
    },
    checkpoint: { checkpoint_id: input.checkpoint_id, thread_id: thread.thread_id, checkpoint_ns: '' },
    parent_checkpoint: null,
    parent_checkpoint_id: null,
  });
  expect(latest).toMatchObject({
    values: expected,
    next: ['respond'],
    metadata: { source: 'update', step: 0, writes: { prepare: { messages: [{ role: 'ai', content: 'prepared' }], topic: 'second' } } },
    parent_checkpoint_id: input.checkpoint_id,
    parent_checkpoint: { checkpoint_id: input.checkpoint_id, thread_id: thread.thread_id, checkpoint_ns: '' },
  });
  expect(latest.checkpoint_id).toMatch(UUID);
  expect(latest.checkpoint_id).not.toBe(input.checkpoint_id);
  expect(threads.state(thread.thread_id), 'the state is the latest checkpoint').toEqual(latest);
});

test('a superstep of several updates writes one checkpoint, attributed to its last node', () => {
  // THREAD-SUPERSTEPS-AS-NODE: __input__, __start__ and the graph's own nodes are accepted.
  const { threads } = store();
  const thread = threads.create({
    metadata: { graph_id: 'agent' },
    supersteps: [
      {
        updates: [
          { values: { topic: 'a' }, as_node: '__input__' },
          { values: { topic: 'b' }, as_node: 'prepare' },
        ],
      },
    ],
  });
  const history = threads.history(thread.thread_id);
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({
    values: { topic: 'b' },
    next: ['respond'],
    metadata: { source: 'update', writes: { __input__: { topic: 'a' }, prepare: { topic: 'b' } } },
  });

  const started = threads.create({ metadata: { graph_id: 'agent' }, supersteps: [step('__start__', { topic: 's' })] });
  expect(threads.state(started.thread_id)).toMatchObject({ next: ['prepare'], metadata: { source: 'update', writes: { __start__: { topic: 's' } } } });
  const ended = threads.create({ metadata: { graph_id: 'agent' }, supersteps: [step('respond', { topic: 'done' })] });
  expect(threads.state(ended.thread_id).next, 'nothing follows the last node').toEqual([]);
  const empty = threads.create({ metadata: { graph_id: 'agent' }, supersteps: [{ updates: [{ as_node: '__input__' }] }] });
  expect(threads.state(empty.thread_id)).toMatchObject({ values: {}, metadata: { writes: { __input__: {} } } });
});

test('supersteps need a deployed graph and its nodes; a refused create stores nothing', () => {
  const { threads } = store();
  const noGraph = refusalOf(() => threads.create({ supersteps: [step('__input__', { topic: 'x' })] }));
  expect(noGraph).toMatchObject({ status: 422, issues: [{ loc: ['body', 'metadata', 'graph_id'], type: 'value_error' }] });
  expect(refusalOf(() => threads.create({ metadata: { graph_id: 'nosuch' }, supersteps: [step('__input__', {})] }))?.status).toBe(422);
  const badNode = refusalOf(() => threads.create({ metadata: { graph_id: 'agent' }, supersteps: [step('__input__', {}), step('nowhere', {})] }));
  expect(badNode).toMatchObject({
    status: 422,
    message: expect.stringContaining("'nowhere'"),
    issues: [{ loc: ['body', 'supersteps', 1, 'updates', 0, 'as_node'] }],
  });
  expect(threads.search({})).toEqual([]);
  expect(threads.create({ supersteps: [] }).values, 'no superstep, no graph needed').toEqual({});
});

test('get, state, history, copy and delete of an unknown thread answer 404 and create nothing', () => {
  // THREAD-GET-UNKNOWN-404, THREAD-UNKNOWN-404, THREAD-COPY-UNKNOWN
  const { threads } = store();
  threads.create({});
  for (const action of [
    () => threads.get(UNKNOWN),
    () => threads.state(UNKNOWN),
    () => threads.history(UNKNOWN),
    () => threads.copy(UNKNOWN),
    () => threads.delete(UNKNOWN),
    () => threads.record(UNKNOWN),
  ]) {
    expect(refusalOf(action)).toMatchObject({ status: 404, message: expect.stringContaining(UNKNOWN) });
  }
  expect(threads.search({})).toHaveLength(1);
});

test("the state at a checkpoint is that checkpoint; an unknown checkpoint, or another thread's, answers 404", () => {
  // THREAD-STATE-CHECKPOINT, THREAD-STATE-CHECKPOINT-UNKNOWN
  const { threads } = store();
  const { thread_id } = threads.create({
    metadata: { graph_id: 'agent' },
    supersteps: [step('__input__', { topic: 'old' }), step('prepare', { topic: 'new' })],
  });
  const [latest, first] = threads.history(thread_id);
  expect(threads.state(thread_id, first.checkpoint_id!)).toEqual(first);
  expect(threads.state(thread_id, first.checkpoint_id!).values).toEqual({ topic: 'old' });
  expect(threads.state(thread_id, latest.checkpoint_id!)).toEqual(threads.state(thread_id));

  expect(refusalOf(() => threads.state(thread_id, UNKNOWN))?.status).toBe(404);
  const other = threads.create({ metadata: { graph_id: 'agent' }, supersteps: [step('__input__', {})] });
  expect(refusalOf(() => threads.state(thread_id, threads.state(other.thread_id).checkpoint_id!))?.status).toBe(404);
});

test('history is newest first, ten by default; limit caps it and before starts after a checkpoint', () => {
  // THREAD-HISTORY, THREAD-HISTORY-ORDER, THREAD-HISTORY-LIMIT
  const { threads } = store();
  const supersteps = Array.from({ length: 12 }, (_, n) => step('__input__', { n }));
  const { thread_id } = threads.create({ metadata: { graph_id: 'agent' }, supersteps });
  const ns = (snapshots: { values: Record<string, unknown> }[]) => snapshots.map((s) => s.values.n);

  expect(ns(threads.history(thread_id))).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  expect(threads.history(thread_id).map((s) => s.metadata.step)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  expect(ns(threads.history(thread_id, { limit: 3 }))).toEqual([11, 10, 9]);
  expect(ns(threads.history(thread_id, { limit: 100 }))).toHaveLength(12);

  const nine = threads.history(thread_id, { limit: 3 })[2].checkpoint_id!;
  expect(ns(threads.history(thread_id, { before: nine, limit: 2 }))).toEqual([8, 7]);
  expect(ns(threads.history(thread_id, { before: nine, limit: 100 }))).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0]);
  const oldest = threads.history(thread_id, { limit: 100 }).at(-1)!.checkpoint_id!;
  expect(threads.history(thread_id, { before: oldest })).toEqual([]);
  expect(refusalOf(() => threads.history(thread_id, { before: UNKNOWN }))?.status).toBe(404);
});

test("a copy is a new idle thread holding the original's metadata and state, independent of it", () => {
  // THREAD-COPY-NEW, THREAD-COPY-STATE, THREAD-COPY-INDEPENDENT, THREAD-CREATE-IDLE, THREAD-CREATE-VALUES-METADATA
  const { clock, threads } = store();
  const original = threads.create({ metadata: { graph_id: 'agent', tag: 'o' }, supersteps: [step('__input__', { topic: 'kept' })] });
  threads.record(original.thread_id).status = 'busy';
  clock.advance(60_000);

  const copy = threads.copy(original.thread_id);
  expect(copy).toMatchObject({
    status: 'idle',
    metadata: { graph_id: 'agent', tag: 'o' },
    values: { topic: 'kept' },
    created_at: '2026-01-01T00:01:00.000Z',
    updated_at: '2026-01-01T00:01:00.000Z',
  });
  expect(copy.thread_id).toMatch(UUID);
  expect(copy.thread_id).not.toBe(original.thread_id);
  const copied = threads.state(copy.thread_id);
  expect(copied.values).toEqual({ topic: 'kept' });
  expect(copied.checkpoint?.thread_id, "the copy's checkpoints name the copy").toBe(copy.thread_id);
  expect(threads.history(copy.thread_id)).toHaveLength(1);

  // A change to either thread leaves the other as it was.
  const source = threads.record(original.thread_id);
  threads.writeCheckpoint(source, { values: { topic: 'changed' }, next: [], source: 'update', writes: null, extra: {} });
  source.metadata.tag = 'changed';
  threads.record(copy.thread_id).checkpoints[0].values.topic = 'changed in the copy';
  expect(threads.get(copy.thread_id)).toMatchObject({ metadata: { tag: 'o' }, values: { topic: 'changed in the copy' } });
  expect(threads.history(copy.thread_id)).toHaveLength(1);
  expect(threads.history(original.thread_id).map((s) => s.values.topic)).toEqual(['changed', 'kept']);
  expect(threads.get(original.thread_id).status, 'the original keeps its own status').toBe('busy');
});

test('writeCheckpoint chains checkpoints, numbers their steps and moves updated_at', () => {
  const { clock, threads } = store();
  const thread = threads.create({});
  const record = threads.record(thread.thread_id);
  const first = threads.writeCheckpoint(record, { values: { a: 1 }, next: ['prepare'], source: 'input', writes: null, extra: { run_id: 'r1' } });
  clock.advance(1000);
  const second = threads.writeCheckpoint(record, { values: { a: 2 }, next: [], source: 'loop', writes: null, extra: { run_id: 'r1' } });
  expect([first.step, first.parent_checkpoint_id]).toEqual([-1, null]);
  expect([second.step, second.parent_checkpoint_id]).toEqual([0, first.checkpoint_id]);
  expect(threads.writeCheckpoint(record, { values: {}, next: [], source: 'fork', writes: null, extra: {}, step: 7 }).step, 'an explicit step is kept').toBe(7);
  expect(threads.get(thread.thread_id)).toMatchObject({ updated_at: '2026-01-01T00:00:01.000Z', created_at: '2026-01-01T00:00:00.000Z', values: {} });
  expect(threads.state(thread.thread_id, second.checkpoint_id).metadata, 'extra metadata is part of the snapshot').toMatchObject({
    run_id: 'r1',
    source: 'loop',
    step: 0,
  });
});

test('a deleted thread is gone from get and search; the others stay', () => {
  const { threads } = store();
  const [a, b] = [threads.create({}), threads.create({})];
  threads.delete(a.thread_id);
  expect(refusalOf(() => threads.get(a.thread_id))?.status).toBe(404);
  expect(ids(threads.search({}))).toEqual([b.thread_id]);
  expect(refusalOf(() => threads.delete(a.thread_id))?.status, 'deleting it again').toBe(404);
  threads.clear();
  expect(threads.search({})).toEqual([]);
});

test('search keeps the threads whose status, metadata, values and id all match', () => {
  // THREAD-SEARCH-ARRAY, THREAD-SEARCH-STATUS, THREAD-SEARCH-METADATA
  const { threads } = store();
  const a = threads.create({
    metadata: { graph_id: 'agent', owner: { team: 'red', size: 2 }, tags: ['x', 'y'] },
    supersteps: [step('__input__', { topic: 'cats' })],
  });
  const b = threads.create({ metadata: { graph_id: 'agent', owner: { team: 'blue', size: 2 } }, supersteps: [step('__input__', { topic: 'dogs' })] });
  const c = threads.create({ metadata: {} });
  threads.record(b.thread_id).status = 'busy';
  const found = (query: Parameters<ThreadStore['search']>[0]) => ids(threads.search({ ...query, sort_order: 'asc' }));

  expect(found({})).toEqual([a.thread_id, b.thread_id, c.thread_id]);
  expect(found({ status: 'busy' })).toEqual([b.thread_id]);
  expect(found({ status: 'idle' })).toEqual([a.thread_id, c.thread_id]);
  expect(found({ status: 'error' })).toEqual([]);
  expect(found({ metadata: { graph_id: 'agent' } })).toEqual([a.thread_id, b.thread_id]);
  expect(found({ metadata: { owner: { team: 'red', size: 2 } } }), 'a nested value matches when deeply equal').toEqual([a.thread_id]);
  expect(found({ metadata: { owner: { team: 'red' } } }), 'a nested value does not match by its part').toEqual([]);
  expect(found({ metadata: { tags: ['x', 'y'] } })).toEqual([a.thread_id]);
  expect(found({ metadata: { tags: ['y', 'x'] } })).toEqual([]);
  expect(found({ metadata: { graph_id: 'agent', missing: null } }), 'a key the metadata lacks never matches, even null').toEqual([]);
  expect(found({ values: { topic: 'dogs' } })).toEqual([b.thread_id]);
  expect(found({ ids: [c.thread_id, a.thread_id] })).toEqual([a.thread_id, c.thread_id]);
  expect(found({ ids: [a.thread_id], status: 'busy' }), 'the filters combine').toEqual([]);
});

test('search answers ten threads newest first by default; limit and offset page through the order asked for', () => {
  // THREAD-SEARCH-DEFAULTS, THREAD-SEARCH-LIMIT, THREAD-SEARCH-OFFSET, THREAD-SEARCH-SORT-ORDER
  const { clock, threads } = store();
  const created: string[] = [];
  for (let i = 0; i < 12; i++) {
    created.push(threads.create({ metadata: { i } }).thread_id);
    clock.advance(1000);
  }
  const newestFirst = [...created].reverse();
  expect(ids(threads.search({}))).toEqual(newestFirst.slice(0, 10));
  expect(ids(threads.search({ limit: 3 }))).toEqual(newestFirst.slice(0, 3));
  expect(ids(threads.search({ limit: 5, offset: 10 }))).toEqual(newestFirst.slice(10));
  expect(ids(threads.search({ offset: 12 }))).toEqual([]);
  expect(ids(threads.search({ sort_order: 'asc', offset: 2, limit: 3 }))).toEqual(created.slice(2, 5));
  expect(ids(threads.search({ sort_by: 'created_at', sort_order: 'desc', limit: 100 }))).toEqual(newestFirst);
});

test('search sorts by thread_id, status and updated_at; equal keys keep creation order', () => {
  // THREAD-SEARCH-SORT
  const { clock, threads } = store();
  const [a, b, c, d] = [1, 2, 3, 4].map(() => threads.create({}).thread_id);
  expect(ids(threads.search({ sort_by: 'thread_id', sort_order: 'asc' }))).toEqual([a, b, c, d].sort());
  expect(ids(threads.search({ sort_by: 'thread_id', sort_order: 'desc' }))).toEqual([a, b, c, d].sort().reverse());
  expect(ids(threads.search({ sort_by: 'created_at', sort_order: 'asc' })), 'created at the same instant').toEqual([a, b, c, d]);
  expect(ids(threads.search({ sort_by: 'created_at' }))).toEqual([d, c, b, a]);

  threads.record(a).status = 'interrupted';
  threads.record(b).status = 'error';
  threads.record(d).status = 'busy';
  expect(ids(threads.search({ sort_by: 'status', sort_order: 'asc' }))).toEqual([d, b, c, a]);

  clock.advance(1000);
  threads.writeCheckpoint(threads.record(b), { values: { touched: true }, next: [], source: 'update', writes: null, extra: {} });
  expect(ids(threads.search({ sort_by: 'updated_at', sort_order: 'desc' }))).toEqual([b, d, c, a]);
  expect(ids(threads.search({ sort_by: 'updated_at', sort_order: 'asc' }))).toEqual([a, c, d, b]);
});

test('a sort order other than asc or desc is refused with 422', () => {
  const { threads } = store();
  threads.create({});
  for (const sort_order of ['ASC', 'ascending', '']) {
    expect(refusalOf(() => threads.search({ sort_order }))).toMatchObject({ status: 422, issues: [{ loc: ['body', 'sort_order'], type: 'enum' }] });
  }
});

test('update merges the metadata given into the thread and moves updated_at; an unknown thread answers 404', () => {
  // THREAD-UPDATE
  const { clock, threads } = store();
  const thread = threads.create({ metadata: { graph_id: 'agent', owner: 'a', color: 'red' } });
  clock.advance(1000);
  const updated = threads.update(thread.thread_id, { metadata: { color: 'blue', size: 'big' } });
  expect(updated.metadata).toEqual({ graph_id: 'agent', owner: 'a', color: 'blue', size: 'big' });
  expect(updated.updated_at > thread.updated_at).toBe(true);
  expect(updated.created_at).toBe(thread.created_at);
  expect(threads.get(thread.thread_id)).toEqual(updated);
  expect(threads.update(thread.thread_id, {}).metadata, 'no metadata changes none').toEqual(updated.metadata);
  expect(refusalOf(() => threads.update(UNKNOWN, { metadata: {} }))?.status).toBe(404);
});

test('update refuses a ttl, which the simulator cannot honour, with 422 naming it, and changes nothing', () => {
  const { threads } = store();
  const thread = threads.create({ metadata: { a: 1 } });
  const refused = refusalOf(() => threads.update(thread.thread_id, { metadata: { a: 2 }, ttl: { ttl: 60, strategy: 'delete' } }));
  expect(refused?.status).toBe(422);
  expect(refused?.message).toContain('ttl');
  expect(threads.get(thread.thread_id).metadata).toEqual({ a: 1 });
  expect(threads.update(thread.thread_id, { ttl: null }).metadata, 'a null ttl is no ttl').toEqual({ a: 1 });
});

test('count answers how many threads match status, metadata and values, past any search limit', () => {
  // THREAD-COUNT
  const { threads } = store();
  for (let i = 0; i < 12; i++) threads.create({ metadata: { n: i % 2 } });
  const withValues = threads.create({ metadata: { graph_id: 'agent' }, supersteps: [step('__input__', { topic: 'cats' })] });
  threads.record(withValues.thread_id).status = 'busy';
  expect(threads.count({})).toBe(13);
  expect(threads.count({ metadata: { n: 0 } })).toBe(6);
  expect(threads.count({ status: 'busy' })).toBe(1);
  expect(threads.count({ values: { topic: 'cats' } })).toBe(1);
  expect(threads.count({ status: 'idle', metadata: { graph_id: 'agent' } }), 'the filters combine').toBe(0);
  expect(threads.withMetadata({ n: 1 })).toHaveLength(6);
});
