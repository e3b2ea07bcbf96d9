// A trace run as the store keeps it, compact so that a million fit in memory, and one workspace's runs with the
// indexes that reads and queries look in.
import { segmentOf } from './dotted-order.ts';

type Json = Record<string, unknown>;

export interface Attachment {
  mimeType: string;
  data: Buffer;
}

/** What a run is stored with besides its fields: its lineage and experiment (session_id and session_name, the wire's names), kept apart for lookups. */
interface TraceRunLineage {
  id: string;
  trace_id: string;
  parent_run_id: string | null;
  start_time: string;
  end_time: string | null;
  session_id: string;
  session_name: string | null;
  thread_id: string | null;
  run_type?: unknown;
  reference_example_id?: unknown;
}

/**
 * A run as stored: what queries filter on as plain properties, and every other field the caller sent as one JSON
 * text (most of a run's size, read only when the run is).
 */
export interface StoredTraceRun extends TraceRunLineage {
  /**
   * Its dotted_order: the text sent where its parent's order and its start time do not make it; where they do, the
   * number of fraction digits of its own segment, the order derived when read (dottedOrder), ~130 B a run not kept.
   */
  order: string | number;
  /** The other fields, as JSON text. */
  rest: string;
  /** Whether the run recorded an error (its status reads 'error' once it ends). */
  failed: boolean;
  attachments?: Map<string, Attachment>;
}

export type TraceRunFields = Json & TraceRunLineage & { dotted_order: string };

/** A run by id: stored, or about to be. */
export type RunLookup = (id: string) => StoredTraceRun | undefined;

const KEPT_APART = [
  'id',
  'trace_id',
  'dotted_order',
  'parent_run_id',
  'start_time',
  'end_time',
  'session_id',
  'session_name',
  'thread_id',
  'run_type',
  'reference_example_id',
] as const;

/** A run's fields, stored compactly; child_runs, which a client may send with a run, is not kept. */
export function compact(fields: TraceRunFields, attachments: Map<string, Attachment> | undefined): StoredTraceRun {
  const rest: Json = {};
  for (const key in fields) if (!(KEPT_APART as readonly string[]).includes(key) && key !== 'child_runs') rest[key] = fields[key];
  const run: StoredTraceRun = {
    id: fields.id,
    trace_id: fields.trace_id,
    order: fields.dotted_order,
    parent_run_id: fields.parent_run_id,
    start_time: flat(fields.start_time),
    end_time: fields.end_time ? flat(fields.end_time) : null,
    session_id: fields.session_id,
    session_name: fields.session_name,
    thread_id: fields.thread_id,
    run_type: fields.run_type,
    reference_example_id: fields.reference_example_id,
    rest: flat(JSON.stringify(rest)),
    failed: Boolean(fields.error),
  };
  if (attachments && attachments.size > 0) run.attachments = attachments;
  return run;
}

/**
 * The string itself, flat: V8 builds long strings (JSON.stringify's, template literals') as trees of pieces, twice
 * the size or more; reading it as a number joins the pieces, and the collector then drops the tree.
 */
function flat(value: string): string {
  Number(value);
  return value;
}

/** A stored run's fields, whole again (its dotted_order from dottedOrder): a fresh object the caller may change. */
export function expand(run: StoredTraceRun, dottedOrder: string): TraceRunFields {
  const fields = JSON.parse(run.rest) as TraceRunFields;
  for (const key of KEPT_APART) {
    if (key === 'dotted_order') fields.dotted_order = dottedOrder;
    else if (run[key] !== undefined) (fields as Json)[key] = run[key];
  }
  return fields;
}

/**
 * A run's dotted_order (spec §2.5): kept, or its parent's then its own segment, its start time with the fraction
 * digits it was sent with. `memo` keeps the orders a read derives for several runs of one trace.
 */
export function dottedOrder(run: StoredTraceRun, lookup: RunLookup, memo?: Map<StoredTraceRun, string>): string {
  if (typeof run.order === 'string') return run.order;
  const known = memo?.get(run);
  if (known !== undefined) return known;
  const own = segmentOf(run.start_time, run.id, run.order);
  const order = run.parent_run_id === null ? own : `${dottedOrder(lookup(run.parent_run_id)!, lookup, memo)}.${own}`;
  memo?.set(run, order);
  return order;
}

/**
 * The fraction digits of the run's own segment when its dotted_order is the one its parent (stored in the same
 * experiment, so that both are forgotten together) and its start time make; undefined when it is not, as when the
 * caller's segment time is not its start_time (accepted and marked, trace-run-lineage.ts): then the text is kept.
 */
function derivable(run: StoredTraceRun, sent: string, lookup: RunLookup): number | undefined {
  const last = sent.lastIndexOf('.') + 1;
  // The own segment is YYYYMMDDTHHMMSS, up to six fraction digits, Z and the run's id.
  const digits = sent.length - last - 15 - 1 - 36;
  if (digits < 0 || digits > 6) return undefined;
  let prefix = '';
  if (run.parent_run_id !== null) {
    const parent = lookup(run.parent_run_id);
    if (!parent || parent.session_id !== run.session_id) return undefined;
    prefix = `${dottedOrder(parent, lookup)}.`;
  }
  return sent === `${prefix}${segmentOf(run.start_time, run.id, digits)}` ? digits : undefined;
}

export interface WorkspaceTraceRuns {
  traceRuns: Map<string, StoredTraceRun>;
  /** Run ids by trace, and by experiment (their session_id): reads and queries look there, not at every run. */
  byTrace: Map<string, string[]>;
  byExperiment: Map<string, string[]>;
  feedback: Map<string, Json>;
  /** The experiments runs were traced into: their ids by name. */
  experiments: Map<string, string>;
  /** One copy of each short value that runs repeat (run_type, session_id, session_name), up to MAX_REPEATED of them. */
  repeated: Map<string, string>;
}

const MAX_REPEATED = 1024;

export function emptyWorkspace(): WorkspaceTraceRuns {
  return { traceRuns: new Map(), byTrace: new Map(), byExperiment: new Map(), feedback: new Map(), experiments: new Map(), repeated: new Map() };
}

/**
 * Keeps a run, indexing it by trace and experiment the first time its id is stored; its dotted_order is kept only
 * where it cannot be derived. `lookup` finds its parent, stored or kept by the same request.
 */
export function keep(data: WorkspaceTraceRuns, run: StoredTraceRun, lookup: RunLookup = (id) => data.traceRuns.get(id)): void {
  share(data, run);
  if (typeof run.order === 'string') run.order = derivable(run, run.order, lookup) ?? run.order;
  if (!data.traceRuns.has(run.id)) {
    for (const [index, key] of [
      [data.byTrace, run.trace_id],
      [data.byExperiment, run.session_id],
    ] as const) {
      const ids = index.get(key);
      // Most traces hold a few runs: their lists are copied at their exact size by concat, where a push would reserve
      // 16 more and a spread as many (~200 B a list of 4 where concat takes 72).
      if (ids && ids.length >= 16) ids.push(run.id);
      else index.set(key, ids ? ids.concat(run.id) : [run.id]);
    }
  }
  data.traceRuns.set(run.id, run);
}

/**
 * Where a run repeats a string its parent or other runs hold (its trace_id, its parent's id, a time, its run_type and
 * experiment), it keeps that string rather than a copy of it: most of the size of a million runs.
 */
function share(data: WorkspaceTraceRuns, run: StoredTraceRun): void {
  const parent = run.parent_run_id === null ? undefined : data.traceRuns.get(run.parent_run_id);
  if (parent) {
    run.parent_run_id = parent.id;
    if (run.trace_id === parent.trace_id) run.trace_id = parent.trace_id;
    if (run.start_time === parent.start_time) run.start_time = parent.start_time;
    if (run.end_time !== null && run.end_time === parent.end_time) run.end_time = parent.end_time;
  } else if (run.trace_id === run.id) {
    run.trace_id = run.id;
  }
  if (run.end_time === run.start_time) run.end_time = run.start_time;
  run.session_id = once(data, run.session_id);
  if (run.session_name !== null) run.session_name = once(data, run.session_name);
  if (typeof run.run_type === 'string') run.run_type = once(data, run.run_type);
}

function once(data: WorkspaceTraceRuns, value: string): string {
  const kept = data.repeated.get(value);
  if (kept !== undefined) return kept;
  if (data.repeated.size < MAX_REPEATED && value.length <= 64) data.repeated.set(value, value);
  return value;
}

/** Forgets an experiment's runs, and the experiment: its runs leave the trace index too. */
export function forgetExperiment(data: WorkspaceTraceRuns, experimentId: string): void {
  const gone = new Set(data.byExperiment.get(experimentId) ?? []);
  const traces = new Set<string>();
  for (const id of gone) {
    const run = data.traceRuns.get(id);
    if (run) traces.add(run.trace_id);
    data.traceRuns.delete(id);
  }
  for (const trace of traces) {
    const left = (data.byTrace.get(trace) ?? []).filter((id) => !gone.has(id));
    if (left.length > 0) data.byTrace.set(trace, left);
    else data.byTrace.delete(trace);
  }
  data.byExperiment.delete(experimentId);
  for (const [name, id] of data.experiments) if (id === experimentId) data.experiments.delete(name);
}
