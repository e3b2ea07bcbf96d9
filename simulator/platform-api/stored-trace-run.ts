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
}

export function emptyWorkspace(): WorkspaceTraceRuns {
  return { traceRuns: new Map(), byTrace: new Map(), byExperiment: new Map(), feedback: new Map(), experiments: new Map() };
}

/** Keeps a run, indexing it by trace and experiment the first time its id is stored. */
export function keep(data: WorkspaceTraceRuns, run: StoredRun): void {
  if (!data.traceRuns.has(run.id)) {
    for (const [index, key] of [
      [data.byTrace, run.trace_id],
      [data.byExperiment, run.session_id],
    ] as const) {
      const ids = index.get(key);
      if (ids) ids.push(run.id);
      else index.set(key, [run.id]);
    }
  }
  data.traceRuns.set(run.id, run);
}
