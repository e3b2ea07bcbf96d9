// The reads of what an upload made, and the platform datasets uploads are refused into: paths the
// spec does not show (§4.4 names only the upload), served as the service serves them. The suites
// read through them to see where an upload's data landed; a target that serves none leaves those
// rules unjudged, explained by these.
import { expectArray, expectStatus, precondition } from '../../harness/checks/index.ts';
import { expect, test } from './fixtures.ts';
import type { Dataset, Example, Experiment, Feedback } from '../../specs/types/platform-api.ts';
import { baseTime, isoWith, readWritten, TraceRunIds, untilWritten } from './traces-steps.ts';
import { experimentStart, upload, uploadBody } from './uploads-steps.ts';

test('POST /api/v1/datasets creates a platform dataset, not externally managed', { tag: '@UPLOAD-PLATFORM-DATASET' }, async ({ platform, testKey }) => {
  const name = `apc-platform-ds-${testKey}`;
  const res = await platform.post<Dataset>('/api/v1/datasets', { name, description: 'made on the platform' });
  expectStatus(res, '2xx');
  expect(typeof res.json.id, res.describe('its id')).toBe('string');
  expect([res.json.name, res.json.description], res.describe('its name and description')).toEqual([name, 'made on the platform']);
  expect(res.json.externally_managed ?? false, res.describe('not externally managed')).toBe(false);
});

test('GET /api/v1/datasets lists datasets by name and by id, and GET /api/v1/datasets/{id} answers one', { tag: '@UPLOAD-READ-DATASETS' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const res = await upload(platform, uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  precondition(res, 'upload an experiment');
  const { id, name } = res.json.dataset;
  const one = await readWritten<Dataset>(platform, time, `/api/v1/datasets/${id}`);
  expectStatus(one, 200);
  expect([one.json.id, one.json.name], one.describe('the uploaded dataset')).toEqual([id, name]);
  for (const query of [`name=${encodeURIComponent(name)}`, `id=${id}`]) {
    const found = expectArray(await platform.get<Dataset[]>(`/api/v1/datasets?${query}`), `the datasets with ${query}`);
    expect(
      found.map((d) => d.id),
      `the datasets with ${query}`,
    ).toEqual([id]);
  }
  const none = `${name}-never-made`;
  expect(expectArray(await platform.get<Dataset[]>(`/api/v1/datasets?name=${encodeURIComponent(none)}`), `the datasets named ${none}`)).toEqual([]);
});

test("GET /api/v1/examples lists an uploaded dataset's examples: one per row, with its inputs and expected outputs", { tag: '@UPLOAD-READ-EXAMPLES' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
  const res = await upload(platform, body);
  precondition(res, 'upload an experiment');
  // Once the rows are persisted: until then an eventually consistent service may list part of them.
  const listed = await untilWritten(
    time,
    () => platform.get<Example[]>(`/api/v1/examples?dataset=${res.json.dataset.id}`),
    (examples) => Array.isArray(examples) && examples.length >= body.results.length,
  );
  const examples = expectArray(listed, "the dataset's examples");
  const pairs = (list: { inputs?: unknown; outputs?: unknown }[]) => list.map((e) => JSON.stringify([e.inputs, e.outputs ?? null])).sort();
  expect(pairs(examples), listed.describe("one example per row: the row's inputs and expected outputs")).toEqual(
    pairs(body.results.map((r) => ({ inputs: r.inputs, outputs: r.expected_outputs }))),
  );
});

test('GET /api/v1/sessions lists experiments by name, and GET /api/v1/sessions/{id} answers one with its statistics once persisted', {
  tag: '@UPLOAD-READ-EXPERIMENTS',
}, async ({ traceRunIds, platform, testKey, conformanceRun, time }) => {
  const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
  const res = await upload(platform, body);
  precondition(res, 'upload an experiment');
  const { id, name } = res.json.experiment;
  const one = await untilWritten(
    time,
    () => platform.get<Experiment>(`/api/v1/sessions/${id}`),
    (e) => e.run_count === body.results.length,
    'stats',
  );
  expectStatus(one, 200);
  expect([one.json.id, one.json.name], one.describe('the uploaded experiment')).toEqual([id, name]);
  expect(one.json.run_count, one.describe('its run count, once its runs are persisted')).toBe(body.results.length);
  const found = expectArray(await platform.get<Experiment[]>(`/api/v1/sessions?name=${encodeURIComponent(name)}`), `the sessions named ${name}`);
  expect(
    found.map((e) => e.id),
    `the sessions named ${name}`,
  ).toEqual([id]);
  const none = `${name}-never-made`;
  expect(expectArray(await platform.get<Experiment[]>(`/api/v1/sessions?name=${encodeURIComponent(none)}`), `the sessions named ${none}`)).toEqual([]);
});

test('GET /feedback lists the feedback of a session, and GET /feedback/{id} answers one of it', { tag: '@TRACE-READ-FEEDBACK' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  // Feedback of an upload (§4.4, a request the spec shows): the experiment's summary scores.
  const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
  const res = await upload(platform, body);
  precondition(res, 'upload an experiment with summary scores');
  const listed = await untilWritten(
    time,
    () => platform.get<Feedback[]>(`/feedback?session=${res.json.experiment.id}`),
    (list) => Array.isArray(list) && list.some((f) => f.key === 'overall'),
  );
  const summary = expectArray(listed, "the experiment's feedback").find((f) => f.key === 'overall');
  expect(summary?.score, listed.describe('the summary score, as uploaded')).toBe(0.5);
  const one = await platform.get<Feedback>(`/feedback/${summary?.id}`);
  expectStatus(one, 200);
  expect([one.json.key, one.json.score], one.describe('the same feedback, read by its id')).toEqual(['overall', 0.5]);
  // Feedback posted on a run posted with POST /runs is listed by its run.
  const ids = new TraceRunIds(`${testKey}-posted`, conformanceRun);
  const run = ids.v7(baseTime(conformanceRun));
  precondition(
    await platform.post('/runs', { id: run, name: 'with-feedback', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }),
    'post a run',
  );
  const posted = ids.v4();
  precondition(await platform.post('/feedback', { id: posted, run_id: run, key: 'posted', score: 1 }), 'post feedback on the run');
  const byRun = await untilWritten(
    time,
    () => platform.get<Feedback[]>(`/feedback?run=${run}`),
    (list) => Array.isArray(list) && list.some((f) => f.id === posted),
  );
  expect(
    expectArray(byRun, "the run's feedback").map((f) => f.id),
    byRun.describe('the feedback posted on the run'),
  ).toContain(posted);
});
