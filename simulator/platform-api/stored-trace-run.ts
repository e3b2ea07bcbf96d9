// A trace run as the store keeps it, compact so that a million fit in memory, and one workspace's runs with the
// indexes that reads and queries look in.

type Json = Record<string, unknown>;

export interface Attachment {
  mimeType: string;
  data: Buffer;
}

/** What a run is stored with besides its fields: its lineage and experiment (session_id and session_name, the wire's names), kept apart for lookups. */
interface RunLineage {
  id: string;
  trace_id: string;
  dotted_order: string;
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
export interface StoredRun extends RunLineage {
  /** The other fields, as JSON text. */
  rest: string;
  /** Whether the run recorded an error (its status reads 'error' once it ends). */
  failed: boolean;
  attachments?: Map<string, Attachment>;
}

export type RunFields = Json & RunLineage;

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

/** A run's fields, stored compactly. */
export function compact(fields: RunFields, attachments: Map<string, Attachment> | undefined): StoredRun {
  const rest: Json = {};
  for (const key in fields) if (!(KEPT_APART as readonly string[]).includes(key)) rest[key] = fields[key];
  const run: StoredRun = {
    id: fields.id,
    trace_id: fields.trace_id,
    dotted_order: fields.dotted_order,
    parent_run_id: fields.parent_run_id,
    start_time: fields.start_time,
    end_time: fields.end_time ?? null,
    session_id: fields.session_id,
    session_name: fields.session_name,
    thread_id: fields.thread_id,
    run_type: fields.run_type,
    reference_example_id: fields.reference_example_id,
    rest: JSON.stringify(rest),
    failed: Boolean(fields.error),
  };
  if (attachments && attachments.size > 0) run.attachments = attachments;
  return run;
}

/** A stored run's fields, whole again: a fresh object the caller may change. */
export function expand(run: StoredRun): RunFields {
  const fields = JSON.parse(run.rest) as RunFields;
  for (const key of KEPT_APART) if (run[key] !== undefined) (fields as Json)[key] = run[key];
  return fields;
}

export interface WorkspaceTraceRuns {
  traceRuns: Map<string, StoredRun>;
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

/** Keeps a run, indexing it by trace and experiment the first time its id is stored. */
export function keep(data: WorkspaceTraceRuns, run: StoredRun): void {
  share(data, run);
  if (!data.traceRuns.has(run.id)) {
    for (const [index, key] of [
      [data.byTrace, run.trace_id],
      [data.byExperiment, run.session_id],
    ] as const) {
      const ids = index.get(key);
      // Most traces hold a few runs: their lists are copied at their exact size, where a push would reserve 16 more.
      if (ids && ids.length >= 16) ids.push(run.id);
      else index.set(key, ids ? [...ids, run.id] : [run.id]);
    }
  }
  data.traceRuns.set(run.id, run);
}

/**
 * Where a run repeats a string its parent or other runs hold (its trace_id, its parent's id, a time, its run_type and
 * experiment), it keeps that string rather than a copy of it: most of the size of a million runs.
 */
function share(data: WorkspaceTraceRuns, run: StoredRun): void {
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
