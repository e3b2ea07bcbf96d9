// Experiment uploads for the suites (spec §2.6, §4.4): a valid body to start from, and the
// reads that show what an upload created once its runs are persisted.
import { precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import type { RunContext } from '../../harness/run-context.ts';
import type { Example, Experiment, ExperimentUploadRequest, ExperimentUploadResponse, Feedback, TraceRun } from '../../specs/types/platform-api.ts';
import type { RunIds } from './traces.ts';

export type Json = Record<string, unknown>;

const UPLOAD = '/api/v1/datasets/upload-experiment';

export type UploadAnswer = ExperimentUploadResponse;

export interface Persisted {
  experiment: Experiment;
  runs: TraceRun[];
  examples: Example[];
  /** Feedback of each run, by run id, and the experiment-level feedback. */
  feedback: Map<string, Feedback[]>;
  summary: Feedback[];
}

/** A valid upload of two rows with scores, names unique to `label`; `at` is the experiment start. */
export function uploadBody(label: string, ids: RunIds, at: number): ExperimentUploadRequest {
  const t = (s: number) => new Date(at + s * 1000).toISOString();
  return {
    experiment_name: `apc-exp-${label}`,
    experiment_description: 'uploaded by the conformance suites',
    experiment_start_time: t(0),
    experiment_end_time: t(600),
    dataset_name: `apc-ds-${label}`,
    dataset_description: 'an external dataset',
    experiment_metadata: { model: 'apc-model', nested: { temperature: 0.2 } },
    summary_experiment_scores: [{ key: 'overall', score: 0.5, comment: 'summary' }],
    results: [
      {
        row_id: ids.v4(),
        inputs: { question: 'one?' },
        expected_outputs: { answer: '1' },
        actual_outputs: { answer: '1' },
        evaluation_scores: [{ key: 'correctness', score: 1 }],
        start_time: t(10),
        end_time: t(12),
        run_name: 'row one',
        run_metadata: { row: 1 },
      },
      {
        row_id: ids.v4(),
        inputs: { question: 'two?' },
        expected_outputs: { answer: '2' },
        actual_outputs: { answer: 'three' },
        evaluation_scores: [{ key: 'correctness', score: 0 }],
        start_time: t(20),
        end_time: t(24),
      },
    ],
  };
}

/** Where experiments of a test start: a fixed instant on the simulator, the last hour elsewhere. */
export function experimentStart(run: RunContext): number {
  return run.target.capabilities.includes('virtual-clock') ? Date.UTC(2026, 0, 1, 10) : Date.now() - 3_600_000;
}

export function upload(platform: ApiClient, body: Json): Promise<ApiResponse<UploadAnswer>> {
  return platform.post<UploadAnswer>(UPLOAD, body);
}

/** Neither the dataset nor the experiment of a refused upload exists. */
export async function createdNothing(platform: ApiClient, body: Json): Promise<string[]> {
  const created: string[] = [];
  if (typeof body.dataset_name === 'string') {
    const datasets = await platform.get<Json[]>(`/api/v1/datasets?name=${encodeURIComponent(body.dataset_name)}`);
    precondition(datasets, 'list datasets by name');
    if (datasets.json.length > 0) created.push(`dataset '${body.dataset_name}'`);
  }
  if (typeof body.dataset_id === 'string') {
    const dataset = await platform.get(`/api/v1/datasets/${body.dataset_id}`);
    // Any 4xx is not found (the status for unknown ids is not shown, §7); another answer cannot tell.
    if (dataset.status < 200 || (dataset.status >= 300 && dataset.status < 400) || dataset.status >= 500) {
      skipForPrecondition(`precondition failed: read dataset ${body.dataset_id} to see whether it was created: ${dataset.describe()}`);
    }
    if (dataset.status < 300) created.push(`dataset ${body.dataset_id}`);
  }
  if (typeof body.experiment_name === 'string') {
    const sessions = await platform.get<Json[]>(`/api/v1/sessions?name=${encodeURIComponent(body.experiment_name)}`);
    precondition(sessions, 'list sessions by name');
    if (sessions.json.length > 0) created.push(`experiment '${body.experiment_name}'`);
  }
  return created;
}

/** Reads the experiment until its statistics are filled in (its runs persisted), then what the upload created. */
export async function persisted(platform: ApiClient, time: Time, answer: UploadAnswer): Promise<Persisted> {
  time.allow('stats');
  const read = async () => {
    const res = await platform.get<Experiment>(`/api/v1/sessions/${answer.experiment.id}?include_stats=true`);
    precondition(res, 'read the experiment');
    return res;
  };
  const { value: experiment } = await time.poll(read, (res) => res.json.latency_p50 !== null && res.json.run_count !== null && res.json.run_count !== 0, {
    deadline: 'stats',
  });
  const runs = await platform.post<{ runs: TraceRun[] }>('/runs/query', { session: [answer.experiment.id], limit: 100 });
  precondition(runs, "query the experiment's runs");
  const examples = await platform.get<Example[]>(`/api/v1/examples?dataset=${answer.dataset.id}`);
  precondition(examples, "list the dataset's examples");
  const feedback = new Map<string, Feedback[]>();
  for (const r of runs.json.runs) {
    const res = await platform.get<Feedback[]>(`/feedback?run=${r.id}`);
    precondition(res, "list a run's feedback");
    feedback.set(r.id!, res.json);
  }
  const session = await platform.get<Feedback[]>(`/feedback?session=${answer.experiment.id}`);
  precondition(session, "list the experiment's feedback");
  return {
    experiment: experiment.json,
    runs: runs.json.runs,
    examples: examples.json,
    feedback,
    summary: session.json.filter((f) => f.run_id === null || f.run_id === undefined),
  };
}
