// Experiment uploads for the suites (spec §2.6, §4.4): a valid body to start from, and the
// reads that show what an upload created once its runs are persisted.
import { expect } from '@playwright/test';
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { Example, Experiment, ExperimentUploadRequest, ExperimentUploadResponse, Feedback, TraceRun } from '../../specs/types/platform-api.ts';
import { type RunIds, untilWritten } from './traces-steps.ts';

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
export function experimentStart(conformanceRun: ConformanceRun): number {
  return conformanceRun.target.capabilities.includes('virtual-clock') ? Date.UTC(2026, 0, 1, 10) : Date.now() - 3_600_000;
}

export function upload(platform: ApiClient, body: Json): Promise<ApiResponse<UploadAnswer>> {
  return platform.post<UploadAnswer>(UPLOAD, body);
}

/** A list a check reads: it must answer one, or the check cannot be made (it fails). */
function listed<T>(res: ApiResponse<T[]>, what: string): T[] {
  expect(res.status === 200 && Array.isArray(res.json), res.describe(`${what} answers a list`)).toBe(true);
  return res.json;
}

/**
 * Neither the dataset nor the experiment of a refused upload exists. The lists and reads that show
 * it are part of the check: one that cannot be read fails it, since it cannot show that nothing
 * was created.
 */
export async function expectCreatedNothing(platform: ApiClient, body: Json, what: string): Promise<void> {
  const none = async (path: string, thing: string) => {
    const found = listed(await platform.get<Json[]>(path), `${what}: listing ${thing}`);
    expect(found, `${what}: no ${thing} was created`).toEqual([]);
  };
  if (typeof body.dataset_name === 'string') await none(`/api/v1/datasets?name=${encodeURIComponent(body.dataset_name)}`, `dataset '${body.dataset_name}'`);
  if (typeof body.dataset_id === 'string') {
    const dataset = await platform.get(`/api/v1/datasets/${body.dataset_id}`);
    // Any 4xx is not found (the status for unknown ids is not shown, §7); another answer cannot tell.
    expect(dataset.status >= 400 && dataset.status < 500, dataset.describe(`${what}: dataset ${body.dataset_id} is not found (a 4xx)`)).toBe(true);
  }
  if (typeof body.experiment_name === 'string')
    await none(`/api/v1/sessions?name=${encodeURIComponent(body.experiment_name)}`, `experiment '${body.experiment_name}'`);
}

/**
 * What an upload created, once its runs are persisted: the experiment is read until its statistics
 * are filled in, and its runs queried until they are all there, as a user of an eventually
 * consistent service would. The reads are how a test sees where the upload's data landed: a list
 * that cannot be read fails the check.
 */
export async function persisted(platform: ApiClient, time: Time, answer: UploadAnswer): Promise<Persisted> {
  const experiment = await untilWritten(
    time,
    () => platform.get<Experiment>(`/api/v1/sessions/${answer.experiment.id}?include_stats=true`),
    (e) => e.latency_p50 !== null && e.run_count !== null && e.run_count !== 0,
    'stats',
  );
  expectStatus(experiment, 200);
  const rows = experiment.json.run_count ?? 1;
  const runs = await untilWritten(
    time,
    () => platform.post<{ runs: TraceRun[] }>('/runs/query', { session: [answer.experiment.id], limit: 100 }),
    (body) => Array.isArray(body.runs) && body.runs.length >= rows,
  );
  precondition(runs, "query the experiment's runs");
  const examples = listed(await platform.get<Example[]>(`/api/v1/examples?dataset=${answer.dataset.id}`), "the dataset's examples");
  const feedback = new Map<string, Feedback[]>();
  for (const r of runs.json.runs) feedback.set(r.id!, listed(await platform.get<Feedback[]>(`/feedback?run=${r.id}`), `the feedback of run ${r.id}`));
  // The wire's session is the experiment.
  const experimentFeedback = listed(await platform.get<Feedback[]>(`/feedback?session=${answer.experiment.id}`), "the experiment's feedback");
  return {
    experiment: experiment.json,
    runs: runs.json.runs,
    examples,
    feedback,
    summary: experimentFeedback.filter((f) => f.run_id === null || f.run_id === undefined),
  };
}
