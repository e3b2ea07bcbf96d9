import { expect, test } from '@playwright/test';
import { compact, dottedOrder, emptyWorkspace, expand, keep, type TraceRunFields } from './stored-trace-run.ts';

const ROOT = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
const CHILD = '01a201a1-cfc8-7000-8000-0208cb5d3b7f';
const rootOrder = `20261122T050151431001Z${ROOT}`;
const lineage = { trace_id: ROOT, start_time: '2026-11-22T05:01:51.431001Z', end_time: null, session_id: 's', session_name: null, thread_id: null };
const root: TraceRunFields = { ...lineage, id: ROOT, dotted_order: rootOrder, parent_run_id: null, name: 'root' };
const child = (changes: Partial<TraceRunFields> = {}): TraceRunFields => ({
  ...lineage,
  id: CHILD,
  dotted_order: `${rootOrder}.20261122T050151431001Z${CHILD}`,
  parent_run_id: ROOT,
  ...changes,
});

/** The runs kept in one workspace, and each one's dotted_order as read. */
function stored(...runs: TraceRunFields[]) {
  const data = emptyWorkspace();
  const staged = new Map(runs.map((fields) => [fields.id, compact(fields, undefined)]));
  for (const run of staged.values()) keep(data, run, (id) => staged.get(id) ?? data.traceRuns.get(id));
  const order = (id: string) => dottedOrder(data.traceRuns.get(id)!, (parent) => data.traceRuns.get(parent));
  return { data, order, kept: (id: string) => data.traceRuns.get(id)!.order };
}

test('a dotted_order its parent and start time make is derived when read, not kept, in the form it was sent', () => {
  for (const [own, digits] of [
    ['20261122T050151431001Z', 6],
    ['20261122T050151431Z', 3],
    ['20261122T050151Z', 0],
  ] as const) {
    const sent = child({ dotted_order: `${rootOrder}.${own}${CHILD}` });
    const { data, order, kept } = stored(sent, root);
    expect([kept(ROOT), kept(CHILD), order(CHILD)]).toEqual([6, digits, sent.dotted_order]);
    expect(expand(data.traceRuns.get(CHILD)!, order(CHILD))).toEqual(sent);
  }
});

test('a dotted_order the run and its parent do not make is kept as sent', () => {
  const sent = [
    // The segment's time is not the start_time: accepted and marked (trace-run-lineage.ts), read back as sent.
    child({ dotted_order: `${rootOrder}.20261122T050152000002Z${CHILD}` }),
    child({ dotted_order: `${rootOrder}.20261122T050151431001Z${CHILD.toUpperCase()}` }),
    // A parent in another experiment may be forgotten without its child.
    child({ session_id: 'other' }),
  ];
  for (const run of sent) expect(stored(root, run).kept(CHILD), run.dotted_order).toBe(run.dotted_order);
  expect(stored(child()).kept(CHILD), 'a parent not stored').toBe(child().dotted_order);
});
