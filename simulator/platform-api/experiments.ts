// Experiment upload (spec §2.6, §4.4): datasets, their examples and the experiments uploaded
// to them, per workspace. An upload creates the dataset when needed, one example and one
// run per row, and an experiment whose statistics stay null until its runs are persisted,
// a few seconds later on the virtual clock. Platform datasets (created with POST /datasets,
// not through the upload) refuse uploads (rules 5 and 6). Plain state, no HTTP.
import type { Dataset, DatasetCreate, Example, Experiment, ExperimentUploadRequest } from '../../specs/types/platform-api.ts';
import type { Clock } from '../clock.ts';
import { conflict, notFound, unprocessable, type ValidationIssue } from '../http/errors.ts';
import type { IdGenerator } from '../ids.ts';
import type { TraceRunStore } from './trace-runs.ts';
import { epochMs, normalizeTime } from './timestamps.ts';

type Json = Record<string, unknown>;

/** How long after an upload its runs are persisted and its statistics filled (spec §2.6: "a few seconds"; UPLOAD-STATS-FILLED-LATER). */
export const PERSIST_DELAY_MS = 5_000;

/** A dataset as stored: its type, counts and modification time always set. */
interface DatasetRecord extends Dataset {
  data_type: string;
  example_count: number;
  session_count: number;
  modified_at: string;
}

/** An upload's runs, feedback and statistics, persisted at `at` (simulated ms). */
interface PendingPersist {
  at: number;
  runs: Json[];
  feedback: Json[];
  statistics: Partial<Experiment>;
}

interface WorkspaceExperiments {
  datasets: Map<string, DatasetRecord>;
  examples: Map<string, Map<string, Example>>;
  experiments: Map<string, Experiment>;
  /** By experiment id, until persisted. */
  pending: Map<string, PendingPersist>;
}

/** One workspace as a snapshot holds it. */
export interface StoredWorkspaceExperiments {
  datasets: DatasetRecord[];
  examples: [string, Example[]][];
  experiments: Experiment[];
  pending: [string, PendingPersist][];
}

export class ExperimentStore {
  private readonly workspaces = new Map<string, WorkspaceExperiments>();

  constructor(private readonly env: { clock: Clock; ids: IdGenerator; traceRuns: TraceRunStore }) {}

  /**
   * POST /api/v1/datasets/upload-experiment: validates all six rules before changing anything (UPLOAD-VIOLATION-4XX,
   * ERROR-REFUSED-UNCHANGED-PLATFORM): 422 for a bad body, 409 for a dataset it may not join (UPLOAD-VIOLATION-RESPONSE).
   */
  upload(workspaceId: string, body: ExperimentUploadRequest): { dataset: Dataset; experiment: Experiment } {
    const data = this.data(workspaceId);
    const window = checkTimes(body);
    const datasetId = body.dataset_id?.toLowerCase();
    const byId = datasetId ? data.datasets.get(datasetId) : undefined;
    const byName = body.dataset_name !== undefined ? [...data.datasets.values()].find((d) => d.name === body.dataset_name) : undefined;
    for (const [found, how] of [
      [byId, `dataset_id ${body.dataset_id}`],
      [byName, `dataset_name '${body.dataset_name}'`],
    ] as const) {
      // Rules 5 and 6 (UPLOAD-EXTERNAL-IDENTIFIER, UPLOAD-EXTERNALLY-MANAGED-ONLY).
      if (found && !found.externally_managed) {
        throw conflict(
          `Rules 5 and 6 (§4.4): ${how} names the platform dataset '${found.name}' (${found.id}), which was not created through this endpoint; only externally managed datasets accept uploads.`,
        );
      }
    }
    if (datasetId && body.dataset_name !== undefined && (byId ?? byName) && byId !== byName) {
      throw conflict(
        `dataset_id ${body.dataset_id} and dataset_name '${body.dataset_name}' name different datasets: give the pair of one dataset, or only one of them.`,
      );
    }
    if ([...data.experiments.values()].some((e) => e.name === body.experiment_name)) {
      throw conflict(`An experiment named '${body.experiment_name}' already exists in this workspace.`);
    }

    const now = this.env.clock.iso();
    // Rules 2 and 3: the named dataset again (UPLOAD-SAME-DATASET), or a new one, its id generated when only a name
    // is given (UPLOAD-GENERATE-ID), externally managed (UPLOAD-DATASET-EXTERNALLY-MANAGED).
    const dataset =
      byId ??
      byName ??
      this.newDataset(data, workspaceId, {
        id: datasetId ?? this.env.ids.uuid(),
        name: body.dataset_name,
        description: body.dataset_description ?? null,
        externallyManaged: true,
      });
    const examples = data.examples.get(dataset.id)!;
    for (const row of body.results) {
      const id = row.row_id.toLowerCase();
      const existing = examples.get(id);
      examples.set(id, {
        id,
        dataset_id: dataset.id,
        inputs: row.inputs,
        outputs: row.expected_outputs ?? null,
        metadata: {},
        created_at: existing?.created_at ?? now,
        modified_at: now,
      });
    }
    // UPLOAD-RESPONSE-EXPERIMENT-FIELDS
    const experiment: Experiment = {
      start_time: window.start,
      end_time: window.end,
      extra: { metadata: body.experiment_metadata ?? {} },
      name: body.experiment_name,
      description: body.experiment_description ?? null,
      default_dataset_id: null,
      reference_dataset_id: dataset.id,
      trace_tier: 'longlived',
      id: this.env.ids.uuid(),
      ...EMPTY_STATS,
      tenant_id: workspaceId,
      test_run_number: dataset.session_count + 1,
    };
    data.experiments.set(experiment.id, experiment);
    dataset.example_count = examples.size;
    dataset.session_count += 1;
    dataset.modified_at = now;
    if (!dataset.last_session_start_time || window.start > dataset.last_session_start_time) dataset.last_session_start_time = window.start;

    const persisted = this.runsOf(body, experiment, now);
    const pending = { at: this.env.clock.now() + PERSIST_DELAY_MS, ...persisted, statistics: statistics(body, persisted.runs) };
    data.pending.set(experiment.id, pending);
    this.persistLater(workspaceId, data, experiment.id, pending);
    return { dataset: structuredClone(dataset), experiment: structuredClone(experiment) };
  }

  /** POST /api/v1/datasets: a dataset created on the platform, not through the upload. */
  createDataset(workspaceId: string, body: DatasetCreate): Dataset {
    const data = this.data(workspaceId);
    // Refused before an id is drawn: a refusal leaves the id stream, and so later ids, as they were.
    refuseTakenName(data, body.name);
    const dataset = this.newDataset(data, workspaceId, {
      id: this.env.ids.uuid(),
      name: body.name,
      description: body.description ?? null,
      externallyManaged: false,
    });
    if (body.data_type) dataset.data_type = body.data_type;
    return structuredClone(dataset);
  }

  listDatasets(workspaceId: string, filter: { name?: string; id?: string[] }): Dataset[] {
    const ids = filter.id && new Set(filter.id.map((id) => id.toLowerCase()));
    return [...this.read(workspaceId).datasets.values()]
      .filter((d) => (filter.name === undefined || d.name === filter.name) && (!ids || ids.has(d.id)))
      .map((d) => structuredClone(d));
  }

  readDataset(workspaceId: string, datasetId: string): Dataset {
    const dataset = this.read(workspaceId).datasets.get(datasetId.toLowerCase());
    if (!dataset) throw notFound(`Dataset ${datasetId} not found`);
    return structuredClone(dataset);
  }

  listExamples(workspaceId: string, datasetId: string): Example[] {
    const examples = this.read(workspaceId).examples.get(datasetId.toLowerCase());
    if (!examples) throw notFound(`Dataset ${datasetId} not found`);
    return [...examples.values()].map((e) => structuredClone(e));
  }

  experimentsNamed(workspaceId: string, name: string | undefined): Experiment[] {
    return [...this.read(workspaceId).experiments.values()].filter((e) => name === undefined || e.name === name).map((e) => structuredClone(e));
  }

  /** GET /sessions/{session_id}: the wire's session is the spec's experiment. */
  experiment(workspaceId: string, experimentId: string): Experiment | undefined {
    const experiment = this.read(workspaceId).experiments.get(experimentId.toLowerCase());
    return experiment && structuredClone(experiment);
  }

  clear(): void {
    this.workspaces.clear();
  }

  /** Datasets, examples and experiments per workspace as plain JSON, uploads not yet persisted included. */
  snapshot(): Record<string, StoredWorkspaceExperiments> {
    return structuredClone(
      Object.fromEntries(
        [...this.workspaces].map(([id, data]) => [
          id,
          {
            datasets: [...data.datasets.values()],
            examples: [...data.examples].map(([datasetId, examples]): [string, Example[]] => [datasetId, [...examples.values()]]),
            experiments: [...data.experiments.values()],
            pending: [...data.pending],
          },
        ]),
      ),
    );
  }

  /** Puts the workspaces back; an upload not yet persisted is persisted when it was due (the clock is set first). */
  restore(snapshot: Record<string, StoredWorkspaceExperiments>): void {
    const workspaces = Object.entries(structuredClone(snapshot)).map(([id, stored]): [string, WorkspaceExperiments] => [
      id,
      {
        datasets: new Map(stored.datasets.map((d) => [d.id, d])),
        examples: new Map(stored.examples.map(([datasetId, examples]) => [datasetId, new Map(examples.map((e) => [e.id, e]))])),
        experiments: new Map(stored.experiments.map((e) => [e.id, e])),
        pending: new Map(stored.pending),
      },
    ]);
    this.workspaces.clear();
    for (const [id, data] of workspaces) {
      this.workspaces.set(id, data);
      for (const [experimentId, pending] of data.pending) this.persistLater(id, data, experimentId, pending);
    }
  }

  /** Stores an upload's runs and fills its experiment's statistics when they are due (UPLOAD-STATS-FILLED-LATER). */
  private persistLater(workspaceId: string, data: WorkspaceExperiments, experimentId: string, pending: PendingPersist): void {
    this.env.clock.schedule(pending.at, () => {
      data.pending.delete(experimentId);
      this.env.traceRuns.insert(workspaceId, pending.runs, pending.feedback);
      Object.assign(data.experiments.get(experimentId)!, pending.statistics);
    });
  }

  /** A workspace's datasets and experiments to read: one that holds none yet is not made by a read (a refused read changes nothing). */
  private read(workspaceId: string): WorkspaceExperiments {
    return this.workspaces.get(workspaceId) ?? { datasets: new Map(), examples: new Map(), experiments: new Map(), pending: new Map() };
  }

  /** Each workspace's datasets and experiments apart (AUTH-PLATFORM-WORKSPACE-ISOLATION). */
  private data(workspaceId: string): WorkspaceExperiments {
    let data = this.workspaces.get(workspaceId);
    if (!data) this.workspaces.set(workspaceId, (data = { datasets: new Map(), examples: new Map(), experiments: new Map(), pending: new Map() }));
    return data;
  }

  private newDataset(
    data: WorkspaceExperiments,
    workspaceId: string,
    spec: { id: string; name?: string; description: string | null; externallyManaged: boolean },
  ): DatasetRecord {
    refuseTakenName(data, spec.name);
    const names = new Set([...data.datasets.values()].map((d) => d.name));
    if (data.datasets.has(spec.id)) throw conflict(`A dataset with id ${spec.id} already exists in this workspace.`);
    // Rule 2: a dataset given only by id gets a generated name (UPLOAD-GENERATE-NAME).
    let name = spec.name ?? `dataset-${spec.id.slice(0, 8)}`;
    for (let n = 2; spec.name === undefined && names.has(name); n++) name = `dataset-${spec.id.slice(0, 8)}-${n}`;
    const now = this.env.clock.iso();
    // UPLOAD-RESPONSE-DATASET-FIELDS
    const dataset: DatasetRecord = {
      name,
      description: spec.description,
      created_at: now,
      data_type: 'kv',
      inputs_schema_definition: null,
      outputs_schema_definition: null,
      externally_managed: spec.externallyManaged,
      id: spec.id,
      tenant_id: workspaceId,
      example_count: 0,
      session_count: 0,
      modified_at: now,
      last_session_start_time: null,
    };
    data.datasets.set(dataset.id, dataset);
    data.examples.set(dataset.id, new Map());
    return dataset;
  }

  /** The runs and feedback an upload persists: one run per row, its scores, and the summary scores. */
  private runsOf(body: ExperimentUploadRequest, experiment: Experiment, now: string): { runs: Json[]; feedback: Json[] } {
    const runs: Json[] = [];
    const feedback: Json[] = [];
    const score = (item: Json, target: Json) => ({ created_at: now, modified_at: now, ...item, ...target, id: this.env.ids.uuid() });
    for (const row of body.results) {
      const id = this.env.ids.uuid();
      runs.push({
        id,
        name: row.run_name ?? body.experiment_name,
        run_type: 'chain',
        inputs: row.inputs,
        ...(row.actual_outputs !== undefined ? { outputs: row.actual_outputs } : {}),
        ...(row.error !== undefined ? { error: row.error } : {}),
        start_time: row.start_time,
        end_time: row.end_time,
        extra: { metadata: row.run_metadata ?? {} },
        reference_example_id: row.row_id.toLowerCase(),
        session_id: experiment.id,
      });
      for (const item of row.evaluation_scores ?? []) feedback.push(score(item, { run_id: id, trace_id: id, session_id: experiment.id }));
    }
    for (const item of body.summary_experiment_scores ?? []) feedback.push(score(item, { run_id: null, session_id: experiment.id }));
    return { runs, feedback };
  }
}

// Null until the runs are persisted (UPLOAD-STATS-INITIALLY-NULL).
const EMPTY_STATS = {
  run_count: null,
  latency_p50: null,
  latency_p99: null,
  first_token_p50: null,
  first_token_p99: null,
  total_tokens: null,
  prompt_tokens: null,
  completion_tokens: null,
  total_cost: null,
  prompt_cost: null,
  completion_cost: null,
  last_run_start_time: null,
  last_run_start_time_live: null,
  feedback_stats: null,
  session_feedback_stats: null,
  run_facets: null,
  error_rate: null,
  streaming_rate: null,
} satisfies Partial<Experiment>;

/**
 * Rule 4 (§4.4, UPLOAD-ROW-TIMES-WITHIN): every row's start_time and end_time lie between experiment_start_time and
 * experiment_end_time (inclusive). A window or a row that ends before it starts is refused too.
 */
function checkTimes(body: ExperimentUploadRequest): { start: string; end: string } {
  const issues: ValidationIssue[] = [];
  // Rule 1 (UPLOAD-DATASET-ID-OR-NAME).
  if (body.dataset_id === undefined && body.dataset_name === undefined) {
    issues.push({ loc: ['body'], msg: 'rule 1 (§4.4): give dataset_id or dataset_name', type: 'missing' });
  }
  const time = (value: string, loc: (string | number)[]) => {
    const normalized = normalizeTime(value);
    if (normalized === undefined) issues.push({ loc, msg: `${value} is not a datetime the service can place`, type: 'datetime_parsing' });
    return normalized ?? '';
  };
  const start = time(body.experiment_start_time, ['body', 'experiment_start_time']);
  const end = time(body.experiment_end_time, ['body', 'experiment_end_time']);
  if (end < start)
    issues.push({ loc: ['body', 'experiment_end_time'], msg: `experiment_end_time ${end} is before experiment_start_time ${start}`, type: 'value_error' });
  const seen = new Set<string>();
  body.results.forEach((row, i) => {
    const rowStart = time(row.start_time, ['body', 'results', i, 'start_time']);
    const rowEnd = time(row.end_time, ['body', 'results', i, 'end_time']);
    for (const [field, value] of [
      ['start_time', rowStart],
      ['end_time', rowEnd],
    ] as const) {
      if (value && start && end && (value < start || value > end)) {
        issues.push({
          loc: ['body', 'results', i, field],
          msg: `rule 4 (§4.4): row ${row.row_id} ${field} ${value} is outside the experiment's time range ${start} .. ${end}`,
          type: 'value_error',
        });
      }
    }
    if (rowEnd < rowStart)
      issues.push({ loc: ['body', 'results', i, 'end_time'], msg: `row ${row.row_id} ends (${rowEnd}) before it starts (${rowStart})`, type: 'value_error' });
    const id = row.row_id.toLowerCase();
    if (seen.has(id))
      issues.push({ loc: ['body', 'results', i, 'row_id'], msg: `row_id ${row.row_id} appears twice: one row per dataset example`, type: 'value_error' });
    seen.add(id);
  });
  if (issues.length > 0) throw unprocessable(`Invalid upload: ${issues.map((i) => i.msg).join('; ')}`, issues);
  return { start, end };
}

/** What persisting the runs fills in: latency and feedback statistics; tokens and cost stay null (UPLOAD-TOKENS-COST-NULL). */
function statistics(body: ExperimentUploadRequest, runs: Json[]): Partial<Experiment> {
  const latencies = body.results.map((row) => (epochMs(normalizeTime(row.end_time)!) - epochMs(normalizeTime(row.start_time)!)) / 1000).sort((a, b) => a - b);
  const starts = runs.map((r) => normalizeTime(r.start_time)!).sort();
  const lastStart = starts[starts.length - 1] ?? null;
  return {
    run_count: runs.length,
    latency_p50: percentile(latencies, 0.5),
    latency_p99: percentile(latencies, 0.99),
    last_run_start_time: lastStart,
    last_run_start_time_live: lastStart,
    feedback_stats: feedbackStats(body.results.flatMap((row) => row.evaluation_scores ?? [])),
    session_feedback_stats: feedbackStats(body.summary_experiment_scores ?? []),
    run_facets: [],
    error_rate: runs.length === 0 ? null : body.results.filter((row) => row.error !== undefined).length / runs.length,
    streaming_rate: runs.length === 0 ? null : 0,
  };
}

/** Linear interpolation between the closest ranks. */
function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

/** Per feedback key: count, mean and standard deviation of the scores, and counts of the values. */
function feedbackStats(items: Json[]): Json {
  const byKey = new Map<string, Json[]>();
  for (const item of items) byKey.set(item.key as string, [...(byKey.get(item.key as string) ?? []), item]);
  const stats: Json = {};
  for (const [key, group] of byKey) {
    const scores = group.map((f) => f.score).filter((s): s is number => typeof s === 'number');
    const avg = scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
    const stdev = avg === null ? null : Math.sqrt(scores.reduce((a, s) => a + (s - avg) ** 2, 0) / scores.length);
    const values: Record<string, number> = {};
    for (const f of group) if (typeof f.value === 'string') values[f.value] = (values[f.value] ?? 0) + 1;
    stats[key] = { n: group.length, avg, stdev, errors: 0, show_feedback_arrow: false, values };
  }
  return stats;
}

function refuseTakenName(data: WorkspaceExperiments, name: string | undefined): void {
  if (name !== undefined && [...data.datasets.values()].some((d) => d.name === name))
    throw conflict(`A dataset named '${name}' already exists in this workspace.`);
}
