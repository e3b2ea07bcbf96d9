// Experiment uploads for the suites (spec §2.6, §4.4): a valid body to start from, and the
// reads that show what an upload created once its runs are persisted.
import { createHash } from 'node:crypto';
import { expect } from '@playwright/test';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { precondition, preconditionArray, rulesOfStep } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { Dataset, Example, Experiment, ExperimentUploadRequest, ExperimentUploadResponse, Feedback, TraceRun } from '../../specs/types/platform-api.ts';
import { expectNotFound, readEvidence, readWritten, type TraceRunIds, servesRead, untilWritten, UUID } from './traces-steps.ts';

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
export function uploadBody(label: string, ids: TraceRunIds, at: number): ExperimentUploadRequest {
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
 * and the list is empty, where the target serves that list (servesRead). A list that cannot be read
 * cannot show it (listed), and an empty one shows it only where the same list shows what exists: a
 * control upload made now, listed the same way (else a failed precondition explained by the list's rule).
 */
export async function expectCreatedNothing(platform: ApiClient, time: Time, body: Json, what: string): Promise<void> {
  const none = async (operation: string, query: string, control: (answer: UploadAnswer) => string, thing: string) => {
    if (!servesRead(platform, operation, `${what}: no ${thing} was created`)) return;
    const res = await platform.get<Json[]>(query);
    const found = listed(res, `${what}: listing ${thing}`);
    if (found.length === 0 && !(await listsControl(platform, time, `${what}:${query}`, control)))
      skipForPrecondition(
        `precondition failed: ${what}: listing ${thing} answered no item, and lists no upload made just now either, so it shows no absence: ${res.describe()}`,
        rulesOfStep(res),
      );
    expect(found, `${what}: no ${thing} was created`).toEqual([]);
  };
  const name = (value: string) => encodeURIComponent(value);
  if (typeof body.dataset_name === 'string')
    await none(
      'listDatasets',
      `/api/v1/datasets?name=${name(body.dataset_name)}`,
      (a) => `/api/v1/datasets?name=${name(a.dataset.name)}`,
      `dataset '${body.dataset_name}'`,
    );
  if (typeof body.dataset_id === 'string' && UUID.test(body.dataset_id))
    await none('listDatasets', `/api/v1/datasets?id=${body.dataset_id}`, (a) => `/api/v1/datasets?id=${a.dataset.id}`, `dataset ${body.dataset_id}`);
  if (typeof body.experiment_name === 'string')
    await none(
      'listSessions',
      `/api/v1/sessions?name=${name(body.experiment_name)}`,
      (a) => `/api/v1/sessions?name=${name(a.experiment.name)}`,
      `experiment '${body.experiment_name}'`,
    );
}

/** The control upload of each test's client: made once, when a read first needs one. */
const controls = new WeakMap<ApiClient, Promise<ApiResponse<UploadAnswer>>>();

/**
 * An upload made now (§4.4 shows the endpoint) whose reads show what a read of the same kind shows
 * of what exists. Its names are derived from `of`, so a run of the suites sends the same body each
 * time. One that is refused is a failed precondition of the test, explained by the upload's rules.
 */
async function controlUpload(platform: ApiClient, of: string): Promise<UploadAnswer> {
  const made = controls.get(platform) ?? upload(platform, controlBody(of));
  controls.set(platform, made);
  const answer = await made;
  precondition(answer, 'upload a control, to show what a read shows of what exists');
  return answer.json;
}

function controlBody(of: string): Json {
  const label = `apc-control-${createHash('sha256').update(of).digest('hex').slice(0, 16)}`;
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10) + s * 1000).toISOString();
  const row = createHash('sha256').update(`row:${of}`).digest('hex');
  return {
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
  };
}

/** Whether the target serves a read of what an upload made (`path` of its answer): the control upload reads back (200). */
async function servesUploadReads(platform: ApiClient, time: Time, of: string, path: (answer: UploadAnswer) => string): Promise<boolean> {
  return (await readWritten(platform, time, path(await controlUpload(platform, of)))).status === 200;
}

/** Whether a list shows what exists: the control upload, listed by `path` of its answer, once it is there. */
async function listsControl(platform: ApiClient, time: Time, of: string, path: (answer: UploadAnswer) => string): Promise<boolean> {
  const query = path(await controlUpload(platform, of));
  const res = await untilWritten(
    time,
    () => platform.get<Json[]>(query),
    (list) => Array.isArray(list) && list.length > 0,
  );
  return res.status === 200 && Array.isArray(res.json) && res.json.length > 0;
}

/** GET /api/v1/datasets/{id} of a dataset that must not exist here (expectNotFound, the control upload's dataset read back), where the target serves that read. */
export async function expectNoDataset(platform: ApiClient, time: Time, id: string, what: string): Promise<void> {
  if (!servesRead(platform, 'readDataset', `${what} is not found`)) return;
  await expectNotFound(await platform.get(`/api/v1/datasets/${id}`), what, () =>
    servesUploadReads(platform, time, id, (a) => `/api/v1/datasets/${a.dataset.id}`),
  );
}

/** GET /api/v1/sessions/{id} of an experiment that must not exist here (expectNotFound, the control upload's experiment read back), where the target serves that read. */
export async function expectNoExperiment(platform: ApiClient, time: Time, id: string, what: string): Promise<void> {
  if (!servesRead(platform, 'readSession', `${what} is not found`)) return;
  await expectNotFound(await platform.get(`/api/v1/sessions/${id}`), what, () =>
    servesUploadReads(platform, time, id, (a) => `/api/v1/sessions/${a.experiment.id}`),
  );
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

/** The reads persisted() makes, none of which the spec shows. */
const PERSISTED_READS = ['readSession', 'queryRuns', 'listExamples', 'listFeedback'];

/** Whether the target serves every read persisted() makes (servesRead: a read it declares it does not serve leaves `check` out). */
export function servesPersistedReads(platform: ApiClient, check: string): boolean {
  return PERSISTED_READS.every((operation) => servesRead(platform, operation, check));
}

/** An uploaded experiment read once its runs are persisted: its statistics filled in (readExperiment). */
export function persistedExperiment(platform: ApiClient, time: Time, answer: UploadAnswer): Promise<ApiResponse<Experiment>> {
  return readExperiment(platform, time, answer.experiment.id, (e) => e.latency_p50 !== null && e.run_count !== null && e.run_count !== 0, 'stats');
}

/**
 * What an upload created, once its runs are persisted: the experiment is read until its statistics
 * are filled in, and its runs queried until they are all there, as a user of an eventually
 * consistent service would. The reads are how a test sees where the upload's data landed; each is a
 * read the spec does not show, taken as evidence (readExperiment, listed).
 */
export async function persisted(platform: ApiClient, time: Time, answer: UploadAnswer): Promise<Persisted> {
  const experiment = await persistedExperiment(platform, time, answer);
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
