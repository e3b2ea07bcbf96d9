// A trace run's lineage (spec §2.5): its trace_id, dotted_order and parent_run_id, which relate it to its parent and
// its trace's root. The TraceRun schema states each field's form; how they agree with each other and with the runs
// already stored is what no schema can state, so it is checked here.
import { parseDottedOrder, parseSegment, type Segment, segmentOf, toSecond } from './dotted-order.ts';
import { normalizeTime } from './timestamps.ts';

/**
 * Who computes trace_id and dotted_order: the service fills in what POST /runs leaves out
 * (spec §4.3); the batch endpoints require the caller's and keep them.
 */
export type LineageSource = 'service' | 'caller';

interface Lineage {
  trace_id: string;
  dotted_order: string;
  parent_run_id: string | null;
  start_time: string;
}

/** A stored (or staged) run, by id: a child's lineage extends its parent's. */
export type LineageLookup = (id: string) => StoredLineage | undefined;

interface StoredLineage {
  id: string;
  trace_id: string;
  dotted_order: string;
}

/** Reports a problem with one field of the run. */
type FieldIssue = (field: string, msg: string) => void;

/**
 * POST /runs without trace_id and dotted_order: the service derives them from the parent (TRACE-CREATE-GENERATES-ORDER):
 * the root's id (TRACE-TRACE-ID), the parent's dotted_order and this run's segment (TRACE-DOTTED-ORDER-CHAIN).
 */
export function computeLineage(
  run: { id: string; parentId: string | null; traceId?: string; start: string },
  lookup: LineageLookup,
  issue: FieldIssue,
): Lineage | undefined {
  const { id, parentId, traceId, start } = run;
  const parent = parentId ? lookup(parentId) : undefined;
  if (parentId && !parent) {
    issue('parent_run_id', `parent run ${parentId} not found: post the parent first, or send trace_id and dotted_order`);
    return undefined;
  }
  const trace = parent?.trace_id ?? id;
  if (traceId && traceId !== trace) {
    issue('trace_id', `trace_id must be the id of the trace's root run, ${trace}`);
    return undefined;
  }
  const own = segmentOf(start, id);
  return { trace_id: trace, dotted_order: parent ? `${parent.dotted_order}.${own}` : own, parent_run_id: parentId, start_time: start };
}

/**
 * The caller's trace_id and dotted_order must describe this run under its parent (spec §2.5): the root's id as
 * trace_id (TRACE-TRACE-ID), the parent's segments then its own (TRACE-DOTTED-ORDER-CHAIN, TRACE-MULTIPART-CONSISTENT).
 */
export function checkLineage(
  run: { id: string; parentId: string | null; traceId?: string; dotted?: string; start?: string; requireTrace: boolean },
  lookup: LineageLookup,
  issue: FieldIssue,
  interpretation: FieldIssue = issue,
): Lineage | undefined {
  const { id, parentId, traceId, dotted, start } = run;
  const missing = [...(dotted === undefined ? ['dotted_order'] : []), ...(traceId === undefined && run.requireTrace ? ['trace_id'] : [])];
  // The batch endpoints take the caller's order and never compute one (TRACE-MULTIPART-CALLER-ORDER).
  for (const field of missing) issue(field, `${field} is required: on the batch endpoints the caller computes it (spec §4.3)`);
  if (missing.length > 0 || dotted === undefined) return undefined;
  const order = readOrder(dotted, parentId === null ? undefined : lookup(parentId));
  if (typeof order === 'string') {
    issue('dotted_order', order);
    return undefined;
  }
  const { rootId, parentInOrder, own } = order;
  const trace = traceId ?? rootId;
  const problems: [string, string][] = [];
  if (own.runId !== id) problems.push(['dotted_order', `the last segment must carry this run's id ${id}, not ${own.runId}`]);
  if (rootId !== trace) problems.push(['trace_id', `trace_id ${trace} must be the id in the first (root) segment of dotted_order, ${rootId}`]);
  if (parentId !== null && parentId !== parentInOrder) {
    problems.push([
      'parent_run_id',
      parentInOrder
        ? `parent_run_id must be the id in the segment before the run's own, ${parentInOrder}`
        : "a run with a parent has its parent's segment before its own in dotted_order",
    ]);
  }
  // Only an interpretation of §2.5 asks the last segment's time to be the start_time: the run is kept as sent, and the
  // disagreement marked (refused under --strict).
  if (start && toSecond(start) !== own.second)
    interpretation(
      'dotted_order',
      `the last segment's timestamp ${own.second} is not the run's start_time ${start} (an interpretation of §2.5, refused under --strict)`,
    );
  const parent = parentInOrder ? lookup(parentInOrder) : undefined;
  if (parent && dotted !== `${parent.dotted_order}.${dotted.split('.').pop()}`) {
    problems.push(['dotted_order', `must extend the parent's dotted_order ${parent.dotted_order} by one segment`]);
  }
  for (const [field, msg] of problems) issue(field, msg);
  if (problems.length > 0) return undefined;
  return { trace_id: trace, dotted_order: dotted, parent_run_id: parentInOrder, start_time: start ?? normalizeTime(own.second)! };
}

/**
 * What the checks read of a dotted order: the root's run id, the run id in the segment before the last (null for a
 * root) and the last segment. Where the order extends the one of the stored run it names as parent, only its last
 * segment is new: the parent's were read when the parent was stored.
 */
function readOrder(dotted: string, parent: StoredLineage | undefined): { rootId: string; parentInOrder: string | null; own: Segment } | string {
  const prefix = `${parent?.dotted_order}.`;
  if (parent && dotted.startsWith(prefix) && !dotted.includes('.', prefix.length)) {
    const own = parseSegment(dotted.slice(prefix.length), parent.dotted_order.split('.').length + 1);
    return typeof own === 'string' ? own : { rootId: parent.trace_id, parentInOrder: parent.id, own };
  }
  const segments = parseDottedOrder(dotted);
  if (typeof segments === 'string') return segments;
  return { rootId: segments[0].runId, parentInOrder: segments.length > 1 ? segments[segments.length - 2].runId : null, own: segments[segments.length - 1] };
}
