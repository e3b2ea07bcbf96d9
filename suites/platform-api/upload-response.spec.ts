// §2.6, §4.4: what an experiment upload answers, and the statistics filled in later.
import { expectSchema, expectStatus } from '../../harness/checks/index.ts';
import { expect, test } from './fixtures.ts';
import { servesRead } from './traces-steps.ts';
import { experimentStart, persisted, persistedExperiment, readDataset, upload, uploadBody } from './uploads-steps.ts';

const LATENCY_AND_FEEDBACK = ['latency_p50', 'latency_p99', 'feedback_stats', 'session_feedback_stats'];
const TOKENS_AND_COST = ['total_tokens', 'prompt_tokens', 'completion_tokens', 'total_cost', 'prompt_cost', 'completion_cost'];

test('a valid upload answers 200 with an object holding dataset and experiment', { tag: '@UPLOAD-RESPONSE' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  expectStatus(res, 200);
  expectSchema(res, 'platform-api', 'ExperimentUploadResponse');
  expect([typeof res.json.dataset, typeof res.json.experiment], res.describe('two objects')).toEqual(['object', 'object']);
});

test("the answer's dataset has every field §2.6 lists", { tag: '@UPLOAD-RESPONSE-DATASET-FIELDS' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  expectStatus(res, 200);
  expectSchema(res, 'platform-api', 'Dataset', res.json.dataset);
});

test("the answer's experiment has every field §2.6 lists", { tag: '@UPLOAD-RESPONSE-EXPERIMENT-FIELDS' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  expectStatus(res, 200);
  expectSchema(res, 'platform-api', 'Experiment', res.json.experiment);
});

test('a dataset created through the upload is externally managed', { tag: '@UPLOAD-DATASET-EXTERNALLY-MANAGED' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  expectStatus(res, 200);
  expect(res.json.dataset.externally_managed, res.describe('externally_managed')).toBe(true);
  // It stays so, where the target serves a read of it.
  if (!servesRead(platform, 'readDataset', 'the dataset reads back externally managed')) return;
  const read = await readDataset(platform, time, res.json.dataset.id);
  expect(read.json.externally_managed, read.describe('and stays so')).toBe(true);
});

test('right after the upload, latency and feedback statistics are null', { tag: '@UPLOAD-STATS-INITIALLY-NULL' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  expectStatus(res, 200);
  for (const field of LATENCY_AND_FEEDBACK) expect(res.json.experiment[field], res.describe(field)).toBeNull();
});

test('once the runs are persisted, latency and feedback statistics are filled in', { tag: '@UPLOAD-STATS-FILLED-LATER' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
  const res = await upload(platform, body);
  expectStatus(res, 200);
  const { experiment } = await persisted(platform, time, res.json);
  // The rows last 2 s and 4 s.
  const [p50, p99] = [experiment.latency_p50 as number, experiment.latency_p99 as number];
  expect(typeof p50 === 'number' && p50 >= 2 && p50 <= 4, `latency_p50 ${p50} lies between the rows' latencies, 2 s and 4 s`).toBe(true);
  expect(typeof p99 === 'number' && p99 >= p50 && p99 <= 4, `latency_p99 ${p99} lies between latency_p50 and the longest row`).toBe(true);
  const feedback = experiment.feedback_stats as Record<string, { n?: number; avg?: number }> | null;
  expect(feedback?.correctness, `feedback_stats has the rows' key: ${JSON.stringify(feedback)}`).toBeTruthy();
  if (feedback?.correctness?.avg !== undefined) expect(feedback.correctness.avg, 'the mean of the scores 1 and 0').toBeCloseTo(0.5);
  const summary = experiment.session_feedback_stats as Record<string, unknown> | null;
  expect(summary?.overall, `session_feedback_stats has the summary key: ${JSON.stringify(summary)}`).toBeTruthy();
});

test('token and cost fields stay null, the upload carrying no such data', { tag: '@UPLOAD-TOKENS-COST-NULL' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  expectStatus(res, 200);
  for (const field of TOKENS_AND_COST) expect(res.json.experiment[field], res.describe(`${field} on upload`)).toBeNull();
  // They stay so once the runs are persisted, where the target serves a read of the experiment.
  if (!servesRead(platform, 'readSession', 'the experiment reads back with token and cost fields null')) return;
  const experiment = await persistedExperiment(platform, time, res.json);
  for (const field of TOKENS_AND_COST) expect(experiment.json[field], experiment.describe(`${field} once persisted`)).toBeNull();
});
