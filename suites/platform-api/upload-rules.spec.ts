// §4.4: the six rules of experiment upload.
import fc from 'fast-check';
import { expectJsonError, expectRefused, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import { forRule } from '../../harness/checks/attribution.ts';
import { expect, test } from './fixtures.ts';
import { assertProperty } from '../../harness/property.ts';
import type { Dataset } from '../../specs/types/platform-api.ts';
import { servesRead, UUID } from './traces-steps.ts';
import { expectCreatedNothing, experimentStart, upload, uploadBody, type Json } from './uploads-steps.ts';

const withoutDataset = ({ dataset_id: _i, dataset_name: _n, ...body }: Json) => body;

/** The instant `ms` written as local time at `minutes` from UTC, e.g. 2026-01-01T11:00:00+01:00. */
function withOffset(ms: number, minutes: number): string {
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

test('rule 1: an upload with neither dataset_id nor dataset_name is refused and creates nothing', { tag: '@UPLOAD-DATASET-ID-OR-NAME' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const body = withoutDataset(uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)));
  // §7 leaves the error status and body of upload-rule violations not shown: a refusal is all the rule states.
  expectRefused(await upload(platform, body));
  await expectCreatedNothing(platform, time, body, 'the refused upload');
});

test('rule 2: an upload giving only a new dataset_id creates the dataset with a generated name', { tag: '@UPLOAD-GENERATE-NAME' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
}) => {
  const datasetId = ids.v4();
  const res = await upload(platform, { ...withoutDataset(uploadBody(testKey, ids, experimentStart(conformanceRun))), dataset_id: datasetId });
  expectStatus(res, 200);
  expect(res.json.dataset.id, res.describe('the given id')).toBe(datasetId);
  expect(typeof res.json.dataset.name === 'string' && res.json.dataset.name !== '', res.describe('a generated name')).toBe(true);
});

test('rule 2: an upload giving only a dataset_name gets a generated dataset id', { tag: '@UPLOAD-GENERATE-ID' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
}) => {
  const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
  const res = await upload(platform, body);
  expectStatus(res, 200);
  expect(res.json.dataset.name, res.describe('the given name')).toBe(body.dataset_name);
  expect(UUID.test(res.json.dataset.id), res.describe('a generated UUID')).toBe(true);
});

test('rule 3: uploading again with the same dataset_id or dataset_name adds an experiment to the same dataset', { tag: '@UPLOAD-SAME-DATASET' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
}) => {
  const at = experimentStart(conformanceRun);
  const first = await upload(platform, uploadBody(`${testKey}-1`, ids, at));
  precondition(first, 'upload a first experiment');
  const byName = await upload(platform, { ...uploadBody(`${testKey}-2`, ids, at), dataset_name: first.json.dataset.name });
  expectStatus(byName, 200);
  const byId = await upload(platform, { ...withoutDataset(uploadBody(`${testKey}-3`, ids, at)), dataset_id: first.json.dataset.id });
  expectStatus(byId, 200);
  for (const res of [byName, byId]) {
    expect(res.json.dataset.id, res.describe('the same dataset')).toBe(first.json.dataset.id);
    expect(res.json.experiment.reference_dataset_id, res.describe('the experiment belongs to it')).toBe(first.json.dataset.id);
  }
  // Three experiments of one dataset. Its session_count is a statistic §2.6 gives no value for right after an upload: not judged here.
  const experiments = new Set([first, byName, byId].map((r) => r.json.experiment.id));
  expect(experiments.size, 'three experiments').toBe(3);
  // A UUID is case-insensitive on input (RFC 9562): the same dataset_id in uppercase is the same dataset.
  const upper = await upload(platform, { ...withoutDataset(uploadBody(`${testKey}-4`, ids, at)), dataset_id: first.json.dataset.id.toUpperCase() });
  expectStatus(upper, 200);
  expect(upper.json.dataset.id.toLowerCase(), upper.describe('the same dataset, its id given in uppercase')).toBe(first.json.dataset.id.toLowerCase());
});

/** Moves row 0's start_time or end_time by `seconds` from the experiment's start or end. */
function rowAt(body: Json, field: 'start_time' | 'end_time', edge: 'experiment_start_time' | 'experiment_end_time', seconds: number): Json {
  const rows = structuredClone(body.results) as Json[];
  rows[0][field] = new Date(Date.parse(body[edge] as string) + seconds * 1000).toISOString();
  if (field === 'start_time' && Date.parse(rows[0].end_time as string) < Date.parse(rows[0][field] as string)) rows[0].end_time = rows[0][field];
  if (field === 'end_time' && Date.parse(rows[0].start_time as string) > Date.parse(rows[0][field] as string)) rows[0].start_time = rows[0][field];
  return { ...body, results: rows };
}

test.describe("rule 4: a row outside the experiment's time range is refused and creates nothing", { tag: '@UPLOAD-ROW-TIMES-WITHIN' }, () => {
  const cases: [string, 'start_time' | 'end_time', 'experiment_start_time' | 'experiment_end_time', number][] = [
    ['a row starting before the experiment', 'start_time', 'experiment_start_time', -1],
    ['a row ending after the experiment', 'end_time', 'experiment_end_time', 1],
    ['a row starting after the experiment', 'start_time', 'experiment_end_time', 60],
    ['a row ending before the experiment', 'end_time', 'experiment_start_time', -60],
  ];
  for (const [name, field, edge, seconds] of cases) {
    test(name, async ({ traceRunIds, platform, testKey, conformanceRun, time }) => {
      const body = rowAt(uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)), field, edge, seconds);
      expectRefused(await upload(platform, body));
      await expectCreatedNothing(platform, time, body, 'the refused upload');
    });
  }

  // Datetimes are instants: the range holds whatever offset or precision each one is written in.
  test('rows within by instant are within, whatever offset and precision their times are written in', async ({
    traceRunIds,
    platform,
    testKey,
    conformanceRun,
  }) => {
    const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
    // Whole seconds inside the experiment's range: an offset is written to the second, and a real clock has milliseconds.
    const start = Math.ceil(Date.parse(body.experiment_start_time) / 1000) * 1000;
    const end = Math.floor(Date.parse(body.experiment_end_time) / 1000) * 1000;
    const [first, second] = body.results;
    const res = await upload(platform, {
      ...body,
      // The experiment's start written an hour ahead of UTC: as text it comes after its rows' UTC times.
      experiment_start_time: withOffset(start, 60),
      // Its end behind UTC: as text it comes before the rows' UTC times.
      experiment_end_time: withOffset(end, -60),
      results: [
        { ...first, start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString().replace('.000Z', 'Z') },
        { ...second, start_time: withOffset(start + 1000, 330), end_time: withOffset(end - 1000, -330) },
      ],
    });
    expectStatus(res, 200);
  });

  test('rows exactly on the bounds are within', async ({ traceRunIds, platform, testKey, conformanceRun }) => {
    const body = rowAt(
      rowAt(uploadBody(testKey, traceRunIds, experimentStart(conformanceRun)), 'start_time', 'experiment_start_time', 0),
      'end_time',
      'experiment_end_time',
      0,
    );
    expectStatus(await upload(platform, body), 200);
  });
});

test('rule 4: for any times, an upload is accepted exactly when every row lies within the experiment', { tag: '@UPLOAD-ROW-TIMES-WITHIN' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const at = experimentStart(conformanceRun);
  const second = fc.integer({ min: -120, max: 720 });
  const row = fc.tuple(second, fc.nat({ max: 120 })).map(([start, length]) => ({ start, end: start + length }));
  let round = 0;
  await assertProperty(
    fc.asyncProperty(fc.integer({ min: 0, max: 600 }), fc.array(row, { minLength: 1, maxLength: 4 }), async (length, rows) => {
      const label = `${testKey}-p${round++}`;
      const t = (s: number) => new Date(at + s * 1000).toISOString();
      const base = uploadBody(label, ids, at);
      const body = {
        ...base,
        experiment_end_time: t(length),
        results: rows.map((r) => ({ row_id: ids.v4(), inputs: { r }, start_time: t(r.start), end_time: t(r.end) })),
      };
      const within = rows.every((r) => r.start >= 0 && r.end <= length);
      const res = await upload(platform, body);
      if (within) {
        expectStatus(res, 200);
      } else {
        expectRefused(res);
        await expectCreatedNothing(platform, time, body, 'the refused upload');
      }
    }),
    { numRuns: 20 },
  );
});

test.describe('rules 5 and 6: a dataset created on the platform, not through the upload, refuses uploads', () => {
  for (const [rule, title, by] of [
    ['UPLOAD-EXTERNAL-IDENTIFIER', 'dataset_name naming a platform dataset is refused', 'name'],
    ['UPLOAD-EXTERNAL-IDENTIFIER', 'dataset_id naming a platform dataset is refused', 'id'],
    ['UPLOAD-EXTERNALLY-MANAGED-ONLY', 'an upload to a dataset not created through the endpoint is rejected, one created through it accepts', 'both'],
  ] as const) {
    test(title, { tag: `@${rule}` }, async ({ traceRunIds: ids, platform, testKey, conformanceRun, time }) => {
      if (by === 'both') {
        // Rule 6's other half: a dataset created through the endpoint accepts uploads.
        await forRule(rule, async () => {
          const external = await upload(platform, uploadBody(`${testKey}-ext`, ids, experimentStart(conformanceRun)));
          expectStatus(external, 200);
          const again = await upload(platform, {
            ...uploadBody(`${testKey}-ext2`, ids, experimentStart(conformanceRun)),
            dataset_name: external.json.dataset.name,
          });
          expectStatus(again, 200);
        });
      }
      const name = `apc-platform-ds-${testKey}`;
      // The rules are about a dataset made on the platform, which the spec shows no way to make: a target
      // that makes none cannot show it refuses uploads to it (UPLOAD-PLATFORM-DATASET explains it).
      const created = await platform.post<Json & { id: string; externally_managed?: boolean }>('/api/v1/datasets', {
        name,
        description: 'made on the platform',
      });
      precondition(created, 'create a dataset on the platform');
      const base = withoutDataset(uploadBody(testKey, ids, experimentStart(conformanceRun)));
      const naming: Json =
        by === 'name' ? { dataset_name: name } : by === 'id' ? { dataset_id: created.json.id } : { dataset_id: created.json.id, dataset_name: name };
      const body = { ...base, ...naming };
      expectRefused(await upload(platform, body));
      await expectCreatedNothing(platform, time, { experiment_name: body.experiment_name }, 'the refused upload');
      // Its examples, listed, rather than counts a read may not show: a list that cannot be read cannot show it
      // untouched, and a target that declares no such listing is judged on the refusal alone.
      if (!servesRead(platform, 'listExamples', 'the platform dataset is untouched')) return;
      const examples = preconditionArray(
        await platform.get<Json[]>(`/api/v1/examples?dataset=${created.json.id}`),
        'list the examples of the platform dataset',
      );
      expect(examples, 'the platform dataset is untouched: no example was added').toEqual([]);
    });
  }
});

test('the error status and body of upload-rule violations', { tag: '@UPLOAD-VIOLATION-RESPONSE' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
  observe,
}) => {
  const at = experimentStart(conformanceRun);
  const violations: [string, Json][] = [
    ['rule 1 (no dataset)', withoutDataset(uploadBody(`${testKey}-1`, ids, at))],
    ['rule 4 (row out of range)', rowAt(uploadBody(`${testKey}-4`, ids, at), 'end_time', 'experiment_end_time', 30)],
  ];
  const platformDataset = await platform.post<Dataset>('/api/v1/datasets', { name: `apc-platform-ds-${testKey}` });
  if (platformDataset.status === 200)
    violations.push(['rules 5/6 (platform dataset)', { ...withoutDataset(uploadBody(`${testKey}-5`, ids, at)), dataset_id: platformDataset.json.id }]);
  const answers: string[] = [];
  for (const [what, body] of violations) {
    const res = await upload(platform, body);
    answers.push(`${what} → ${res.status} ${res.text.slice(0, 160)}`);
  }
  observe('UPLOAD-VIOLATION-RESPONSE', answers.join(' | '));
});

test.describe('a violating or malformed upload answers 4xx with a JSON error body and creates nothing', { tag: '@UPLOAD-VIOLATION-4XX' }, () => {
  const cases: [string, (body: Json) => Json][] = [
    ['no dataset_id or dataset_name', withoutDataset],
    ['a row out of the time range', (body) => rowAt(body, 'start_time', 'experiment_start_time', -5)],
    ['no results', ({ results: _r, ...body }) => body],
    ['results not an array', (body) => ({ ...body, results: { row: 1 } })],
    ['a row without inputs', (body) => ({ ...body, results: [{ ...(body.results as Json[])[0], inputs: undefined }] })],
    ['a dataset_id that is not a UUID', (body) => ({ ...body, dataset_id: 'external-42' })],
    ['an experiment_start_time that is no datetime', (body) => ({ ...body, experiment_start_time: 'this morning' })],
    ['a score that is not a number', (body) => ({ ...body, summary_experiment_scores: [{ key: 'overall', score: 'high' }] })],
  ];
  for (const [name, broken] of cases) {
    test(name, async ({ traceRunIds, platform, testKey, conformanceRun, time }) => {
      const body = JSON.parse(JSON.stringify(broken(uploadBody(testKey, traceRunIds, experimentStart(conformanceRun))))) as Json;
      expectJsonError(await upload(platform, body));
      await expectCreatedNothing(platform, time, body, 'the refused upload');
    });
  }

  test('malformed JSON', async ({ traceRunIds, platform, testKey, conformanceRun, time }) => {
    const body = uploadBody(testKey, traceRunIds, experimentStart(conformanceRun));
    expectJsonError(
      await platform.post('/api/v1/datasets/upload-experiment', undefined, {
        rawBody: JSON.stringify(body).slice(0, -2),
        headers: { 'content-type': 'application/json' },
      }),
    );
    await expectCreatedNothing(platform, time, body, 'the refused upload');
  });
});
