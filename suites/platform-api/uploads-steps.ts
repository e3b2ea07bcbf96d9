// Experiment uploads for the suites (spec §2.6, §4.4): a valid body to start from, and the
// reads that show what an upload created once its runs are persisted.
import { createHash } from 'node:crypto';
import { expect } from '@playwright/test';
import { precondition, preconditionArray } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { Dataset, Example, Experiment, ExperimentUploadRequest, ExperimentUploadResponse, Feedback, TraceRun } from '../../specs/types/platform-api.ts';
import { readEvidence, readWritten, type RunIds, untilWritten, UUID } from './traces-steps.ts';

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

/**
 * A list the spec does not show (x-spec: extra) that a check reads: an answer that is no array says
 * the target serves no such list (or a broken one), a failed precondition explained by the list's
 * own rule; what an array holds is the caller's to judge.
 */
function listed<T>(res: ApiResponse<T[]>, what: string): T[] {
  return preconditionArray(res, `${what} (a list the spec does not show)`);
}

/**
 * Neither the dataset nor the experiment of a refused upload exists: each is listed (by name, by id)
 * and the list is empty. A list that cannot be read cannot show it (listed).
 */
export async function expectCreatedNothing(platform: ApiClient, body: Json, what: string): Promise<void> {
  const none = async (path: string, thing: string) => {
    const found = listed(await platform.get<Json[]>(path), `${what}: listing ${thing}`);
    expect(found, `${what}: no ${thing} was created`).toEqual([]);
  };
  if (typeof body.dataset_name === 'string') await none(`/api/v1/datasets?name=${encodeURIComponent(body.dataset_name)}`, `dataset '${body.dataset_name}'`);
  if (typeof body.dataset_id === 'string' && UUID.test(body.dataset_id)) await none(`/api/v1/datasets?id=${body.dataset_id}`, `dataset ${body.dataset_id}`);
  if (typeof body.experiment_name === 'string')
    await none(`/api/v1/sessions?name=${encodeURIComponent(body.experiment_name)}`, `experiment '${body.experiment_name}'`);
}

/**
 * Whether the target serves a read of what an upload made (`path` of its answer): a control upload
 * made now (§4.4 shows the endpoint), read the same way, answers 200. Its names are derived from
 * `of`, the id the test reads, so a run of the suites sends the same body each time.
 */
async function servesUploadReads(platform: ApiClient, time: Time, of: string, path: (answer: UploadAnswer) => string): Promise<boolean> {
  const label = `apc-control-${createHash('sha256').update(of).digest('hex').slice(0, 16)}`;
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10) + s * 1000).toISOString();
  const row = createHash('sha256').update(`row:${of}`).digest('hex');
  const answer = await upload(platform, {
    experiment_name: label,
    experiment_start_time: at(0),
    experiment_end_time: at(60),
    dataset_name: label,
    results: [
      {
        row_id: `${row.slice(0, 8)}-${row.slice(8, 12)}-4${row.slice(13, 16)}-8${row.slice(17, 20)}-${row.slice(20, 32)}`,
        inputs: { control: true },
        start_time: at(1),
        end_time: at(2),
      },
    ],
  });
  return answer.status === 200 && (await readWritten(platform, time, path(answer.json))).status === 200;
}

/** GET /api/v1/datasets/{id} of a dataset an upload made, once it is there, as evidence (readEvidence, an upload's dataset as control). */
export async function readDataset<T = Dataset>(platform: ApiClient, time: Time, id: string): Promise<ApiResponse<T>> {
  const res = await readWritten<T>(platform, time, `/api/v1/datasets/${id}`);
  return readEvidence(res, `read dataset ${id}`, () => servesUploadReads(platform, time, id, (a) => `/api/v1/datasets/${a.dataset.id}`));
}

/**
 * GET /api/v1/sessions/{id} of an uploaded experiment, until `ready` accepts it (by default once it
 * is there), as evidence (readEvidence, an upload's experiment as control).
 */
export async function readExperiment(
  platform: ApiClient,
  time: Time,
  id: string,
  ready: (experiment: Experiment) => boolean = () => true,
  deadline: 'ingest' | 'stats' = 'ingest',
): Promise<ApiResponse<Experiment>> {
  const res = await untilWritten(time, () => platform.get<Experiment>(`/api/v1/sessions/${id}?include_stats=true`), ready, deadline);
  return readEvidence(res, `read experiment ${id}`, () => servesUploadReads(platform, time, id, (a) => `/api/v1/sessions/${a.experiment.id}`));
}

/**
 * What an upload created, once its runs are persisted: the experiment is read until its statistics
 * are filled in, and its runs queried until they are all there, as a user of an eventually
 * consistent service would. The reads are how a test sees where the upload's data landed; each is a
 * read the spec does not show, taken as evidence (readExperiment, listed).
 */
export async function persisted(platform: ApiClient, time: Time, answer: UploadAnswer): Promise<Persisted> {
  const experiment = await readExperiment(
    platform,
    time,
    answer.experiment.id,
    (e) => e.latency_p50 !== null && e.run_count !== null && e.run_count !== 0,
    'stats',
  );
  const rows = experiment.json.run_count ?? 1;
  const query = await untilWritten(
    time,
    () => platform.post<{ runs: TraceRun[] }>('/runs/query', { session: [answer.experiment.id], limit: 100 }),
    (body) => Array.isArray(body.runs) && body.runs.length >= rows,
  );
  precondition(query, "query the experiment's runs (a query the spec does not show)");
  const runs = listed({ ...query, json: query.json.runs }, "the experiment's runs");
  const examples = listed(await platform.get<Example[]>(`/api/v1/examples?dataset=${answer.dataset.id}`), "the dataset's examples");
  const feedback = new Map<string, Feedback[]>();
  for (const r of runs) feedback.set(r.id!, listed(await platform.get<Feedback[]>(`/feedback?run=${r.id}`), `the feedback of run ${r.id}`));
  // The wire's session is the experiment.
  const experimentFeedback = listed(await platform.get<Feedback[]>(`/feedback?session=${answer.experiment.id}`), "the experiment's feedback");
  return {
    experiment: experiment.json,
    runs,
    examples,
    feedback,
    summary: experimentFeedback.filter((f) => f.run_id === null || f.run_id === undefined),
  };
}
