import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
import { refusalOf } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import { TraceRunStore, type IngestOperation } from './trace-runs.ts';

const ROOT = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
const CHILD = '01a201a1-cfc8-7000-8000-0208cb5d3b7f';
const OTHER = '0c2b9d5e-6a1f-4e3b-8c7d-9e0f1a2b3c4d';
const rootOrder = `20261122T050151431001Z${ROOT}`;
const childOrder = `${rootOrder}.20261122T050152000002Z${CHILD}`;
const root = { id: ROOT, name: 'root', run_type: 'chain', start_time: '2026-11-22T05:01:51.431001Z', trace_id: ROOT, dotted_order: rootOrder };
const child = {
  id: CHILD,
  name: 'child',
  run_type: 'llm',
  start_time: '2026-11-22T05:01:52.000002Z',
  trace_id: ROOT,
  dotted_order: childOrder,
  parent_run_id: ROOT,
};

const store = () => new TraceRunStore({ clock: new VirtualClock(), ids: new IdGenerator('runs') });
const post = (run: Record<string, unknown>): IngestOperation => ({ kind: 'post', run, at: [`post.${String(run.id)}`] });

test('POST /runs computes trace_id and dotted_order from the parent, in the compact form', () => {
  const runs = store();
  runs.ingest('w', [post({ id: ROOT, name: 'root', start_time: 1795323711431 })], 'service');
  runs.ingest(
    'w',
    [post({ id: CHILD, name: 'child', parent_run_id: ROOT, start_time: '2026-11-22T05:01:52.5Z', extra: { metadata: { thread_id: 't' } } })],
    'service',
  );
  const read = runs.read('w', CHILD);
  expect([read.trace_id, read.dotted_order, read.thread_id]).toEqual([ROOT, `20261122T050151Z${ROOT}.20261122T050152Z${CHILD}`, 't']);
  expect(runs.read('w', ROOT).direct_child_run_ids).toEqual([CHILD]);
});

test("a batch keeps the caller's lineage, in any order within the request", () => {
  const runs = store();
  runs.ingest('w', [post(child), post(root)], 'caller');
  expect([runs.read('w', CHILD).dotted_order, runs.read('w', CHILD).parent_run_ids]).toEqual([childOrder, [ROOT]]);
});

test('a batch with inconsistent lineage is refused whole, naming each problem', () => {
  const cases: Record<string, unknown>[] = [
    { ...child, dotted_order: undefined },
    { ...child, trace_id: OTHER },
    { ...child, parent_run_id: OTHER },
    { ...child, dotted_order: childOrder.replace(CHILD, OTHER) },
    { ...child, dotted_order: `20261122T050151431001Z${OTHER}.20261122T050152000002Z${CHILD}` },
  ];
  for (const broken of cases) {
    const runs = store();
    const error = refusalOf(() => runs.ingest('w', [post(root), post(broken)], 'caller'));
    expect(error?.status, JSON.stringify(broken)).toBe(422);
    expect(error?.issues?.[0].loc[0]).toBe(`post.${CHILD}`);
    expect(refusalOf(() => runs.read('w', ROOT))?.status, 'the root of the refused request was not kept').toBe(404);
  }
});

test("a last segment whose time is not the start_time is an interpretation's refusal: kept and marked, refused under strict", () => {
  const late = { ...child, start_time: '2026-11-22T06:00:00Z' };
  const runs = store();
  expect(runs.ingest('w', [post(root), post(late)], 'caller')).toEqual([
    { at: `/post.${CHILD}/dotted_order`, type: 'interpretation', message: expect.stringMatching(/is not the run's start_time .*--strict/) },
  ]);
  expect([runs.read('w', CHILD).dotted_order, runs.read('w', CHILD).start_time]).toEqual([childOrder, '2026-11-22T06:00:00.000000Z']);
  expect(runs.ingest('w', [post({ ...root, id: OTHER, trace_id: OTHER, dotted_order: `20261122T050151431001Z${OTHER}` })], 'caller')).toEqual([]);
  const strict = new TraceRunStore({ clock: new VirtualClock(), ids: new IdGenerator('runs'), strict: true });
  expect(refusalOf(() => strict.ingest('w', [post(root), post(late)], 'caller'))?.issues?.[0].loc).toEqual([`post.${CHILD}`, 'dotted_order']);
  expect(refusalOf(() => strict.read('w', ROOT))?.status).toBe(404);
});

test('a snapshot holds each dotted_order whole, derived or kept, and a restored store reads the same', () => {
  const late = { ...child, start_time: '2026-11-22T06:00:00Z' };
  const other = { ...child, id: OTHER, dotted_order: `${rootOrder}.20261122T050151431001Z${OTHER}`, start_time: root.start_time };
  const runs = store();
  // Children first: each finds its parent among the runs of the same request.
  runs.ingest('w', [post(late), post(other), post(root)], 'caller');
  const snapshot = runs.snapshot();
  expect(snapshot.w.runs.map((r) => r.dotted_order)).toEqual([childOrder, other.dotted_order, rootOrder]);
  const restored = store();
  restored.restore(JSON.parse(JSON.stringify(snapshot)));
  for (const id of [ROOT, CHILD, OTHER]) expect(JSON.stringify(restored.read('w', id))).toBe(JSON.stringify(runs.read('w', id)));
  expect(restored.read('w', ROOT).child_run_ids).toEqual([CHILD, OTHER]);
});

test('a patch of a run whose post in the same request is refused answers 422 for the post, not 404', () => {
  const error = refusalOf(() =>
    store().ingest('w', [post({ ...root, dotted_order: 'broken' }), { kind: 'patch', id: ROOT, run: { outputs: {} }, at: ['patch'] }], 'caller'),
  );
  expect([error?.status, error?.issues?.[0].loc]).toEqual([422, [`post.${ROOT}`, 'dotted_order']]);
});

test('patches merge in order; lineage cannot change; duplicates and unknown runs are refused', () => {
  const runs = store();
  runs.ingest(
    'w',
    [post(root), { kind: 'patch', id: ROOT, run: { outputs: { a: 1 }, end_time: 1795323712000, extra: { metadata: { thread_id: 't' } } }, at: ['patch'] }],
    'caller',
  );
  expect(runs.read('w', ROOT)).toMatchObject({ outputs: { a: 1 }, status: 'success', thread_id: 't', end_time: '2026-11-22T05:01:52.000000Z' });
  expect(refusalOf(() => runs.ingest('w', [{ kind: 'patch', id: ROOT, run: { trace_id: OTHER }, at: ['patch'] }], 'service'))?.status).toBe(422);
  expect(refusalOf(() => runs.ingest('w', [post(root)], 'caller'))?.status).toBe(409);
  expect(refusalOf(() => runs.ingest('w', [{ kind: 'patch', id: OTHER, run: {}, at: ['patch'] }], 'service'))?.status).toBe(404);
});

test('a batch patch that comes in an earlier request than its post is held and applied when the post comes', () => {
  const runs = store();
  const patch = (run: Record<string, unknown>): IngestOperation => ({ kind: 'patch', id: ROOT, run, at: ['patch'] });
  runs.ingest('w', [patch({ outputs: { a: 1 } })], 'caller');
  expect(refusalOf(() => runs.read('w', ROOT))?.status).toBe(404);
  runs.ingest('w', [patch({ end_time: 1795323712000 })], 'caller');
  runs.ingest('w', [post(root)], 'caller');
  expect(runs.read('w', ROOT)).toMatchObject({ outputs: { a: 1 }, status: 'success', end_time: '2026-11-22T05:01:52.000000Z' });
  // Applied once: a later post of another run finds nothing held for it, and the run is patched as usual after.
  runs.ingest('w', [post(child), { kind: 'patch', id: CHILD, run: { outputs: { b: 2 } }, at: ['patch'] }], 'caller');
  expect(runs.read('w', CHILD).outputs).toEqual({ b: 2 });
  // In one request, a patch before its post is applied too.
  const other = store();
  other.ingest('w', [patch({ outputs: { c: 3 } }), post(root)], 'caller');
  expect(other.read('w', ROOT).outputs).toEqual({ c: 3 });
});

test('workspaces hold their own runs', () => {
  const runs = store();
  runs.ingest('a', [post(root)], 'caller');
  expect(refusalOf(() => runs.read('b', ROOT))?.status).toBe(404);
  runs.ingest('b', [post(root)], 'caller');
  expect(runs.query('b', { trace: ROOT }).runs.length).toBe(1);
});

test('query pages with a cursor until next is null', () => {
  const runs = store();
  runs.ingest('w', [post(root), post(child)], 'caller');
  const first = runs.query('w', { trace: ROOT, limit: 1, order: 'asc' });
  expect([first.runs.map((r) => r.id), first.cursors.next]).toEqual([[ROOT], '1']);
  const second = runs.query('w', { trace: ROOT, limit: 1, order: 'asc', cursor: first.cursors.next });
  expect([second.runs.map((r) => r.id), second.cursors.next]).toEqual([[CHILD], null]);
});

test('queries by trace, parent, session and id find the same runs as a filter over all of them, after patches and attachments too', () => {
  const runs = store();
  const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const all: string[][] = [];
  for (let t = 0; t < 5; t++) {
    const rootId = uuid(t * 10);
    const order = `20261122T05015${t}000000Z${rootId}`;
    const kids = [1, 2, 3].map((k) => uuid(t * 10 + k));
    runs.ingest(
      'w',
      [
        post({ id: rootId, trace_id: rootId, dotted_order: order, start_time: `2026-11-22T05:01:5${t}Z`, session_name: t % 2 ? 'odd' : 'even' }),
        ...kids.map((id) =>
          post({ id, trace_id: rootId, parent_run_id: rootId, dotted_order: `${order}.20261122T05015${t}000000Z${id}`, session_name: t % 2 ? 'odd' : 'even' }),
        ),
        { kind: 'patch', id: kids[0], run: { outputs: { done: true }, end_time: `2026-11-22T05:01:5${t}Z` }, at: ['patch'] },
        { kind: 'attachment', runId: kids[1], name: 'file', attachment: { mimeType: 'text/plain', data: Buffer.from('x') }, at: ['attachment'] },
      ],
      'caller',
    );
    all.push([rootId, ...kids]);
  }
  const ids = (result: { runs: Record<string, unknown>[] }) => result.runs.map((r) => r.id).sort();
  expect(ids(runs.query('w', { trace: all[2][0] }))).toEqual([...all[2]].sort());
  expect(ids(runs.query('w', { parent_run: all[3][0] }))).toEqual(all[3].slice(1).sort());
  expect(ids(runs.query('w', { id: [all[1][2], all[4][0]] }))).toEqual([all[1][2], all[4][0]].sort());
  const odd = runs.experimentsNamed('w', 'odd')[0];
  expect(odd.run_count, 'patches and attachments count a run once').toBe(8);
  expect(ids(runs.query('w', { session: [String(odd.id)], limit: 100 }))).toEqual([...all[1], ...all[3]].sort());
  const root = runs.read('w', all[0][0]);
  expect([root.direct_child_run_ids, root.child_run_ids].map((list) => (list as string[]).sort())).toEqual([all[0].slice(1).sort(), all[0].slice(1).sort()]);
  expect(runs.read('w', all[0][1])).toMatchObject({ outputs: { done: true }, status: 'success' });
  expect(Object.keys(runs.read('w', all[0][2]).attachments as object)).toEqual(['file']);
});

test('a project is made with no run, and deleted with its runs: they leave every index', () => {
  const runs = store();
  const made = runs.createProject('w', { name: 'p', description: 'd' }, false);
  expect(made).toMatchObject({ name: 'p', description: 'd', run_count: 0 });
  expect(refusalOf(() => runs.createProject('w', { name: 'p' }, false))?.status).toBe(409);
  expect(runs.createProject('w', { name: 'p' }, true).id).toBe(made.id);
  runs.ingest('w', [post({ ...root, session_name: 'p' }), post({ ...child, session_name: 'p' })], 'caller');
  expect(runs.experimentsNamed('w', 'p')[0].run_count).toBe(2);
  expect(runs.hasProject('w', String(made.id).toUpperCase())).toBe(true);
  runs.deleteProject('w', String(made.id));
  expect([runs.hasProject('w', String(made.id)), runs.experimentsNamed('w', 'p'), runs.query('w', { trace: ROOT }).runs]).toEqual([false, [], []]);
  expect(refusalOf(() => runs.read('w', CHILD))?.status).toBe(404);
  // The name is free again, and the run ids too.
  runs.ingest('w', [post({ ...root, session_name: 'p' })], 'caller');
  expect(runs.read('w', ROOT).session_name).toBe('p');
});

test('a query applies its filter expressions, and refuses, naming it, what it cannot apply', () => {
  const runs = store();
  runs.ingest('w', [post({ ...root, tags: ['a'] }), post(child)], 'caller');
  expect(runs.query('w', { filter: 'eq(name, "child")' }).runs.map((r) => r.id)).toEqual([CHILD]);
  expect(runs.query('w', { filter: 'has(tags, "a")' }).runs.map((r) => r.id)).toEqual([ROOT]);
  expect(runs.query('w', { trace_filter: 'eq(name, "root")', is_root: false }).runs.map((r) => r.id)).toEqual([CHILD]);
  expect(runs.query('w', { tree_filter: 'eq(run_type, "llm")', is_root: true }).runs.map((r) => r.id)).toEqual([ROOT]);
  expect(runs.query('w', { filter: 'eq(name, "nothing")' }).runs).toEqual([]);
  expect(refusalOf(() => runs.query('w', { filter: 'search("x")' }))?.message).toMatch(/filter: the operator 'search'/);
  expect(refusalOf(() => runs.query('w', { query: 'free text' }))?.message).toMatch(/does not apply query/);
  expect(refusalOf(() => runs.query('w', { execution_order: 1 } as never))?.status).toBe(422);
});

test('stats count the runs a query selects, with the share that failed and the latencies of those that ended', () => {
  const runs = store();
  runs.ingest('w', [post(root), post({ ...child, end_time: '2026-11-22T05:01:54.000002Z', error: 'boom' })], 'caller');
  expect(runs.stats('w', { trace: ROOT })).toEqual({
    run_count: 2,
    error_rate: 0.5,
    latency_p50: 2,
    latency_p99: 2,
    last_run_start_time: '2026-11-22T05:01:52.000002Z',
  });
  expect(runs.stats('w', { filter: 'eq(name, "none")' })).toMatchObject({ run_count: 0, error_rate: null, latency_p50: null });
  expect(refusalOf(() => runs.stats('w', { query: 'text' }))?.status).toBe(422);
});

test('a run reads back with the fields it was sent with, in their order; child_runs sent with it is not kept', () => {
  const runs = store();
  const sent = { ...root, zeta: 1, child_runs: [{ id: OTHER }], alpha: { b: 2 }, session_name: 'exp' };
  runs.ingest('w', [post(sent)], 'caller');
  const read = runs.read('w', ROOT);
  const own = Object.keys(read).filter((key) => key === 'zeta' || key === 'alpha');
  expect([own, read.alpha, read.session_name, read.child_runs]).toEqual([['zeta', 'alpha'], { b: 2 }, 'exp', undefined]);
});
