// §2.6: every field of the upload request, its row and its feedback objects. Each rule's
// test uploads a body with the field set as the rule says and checks what the answer shows and,
// where the target serves those reads, where the field lands; a test of
// UPLOAD-VIOLATION-4XX beside it sends the variants that break it and checks they are refused and
// create nothing.
import { isDeepStrictEqual } from 'node:util';
import { expectJsonError, expectStatus } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expect, test } from './fixtures.ts';
import type { TraceRunIds } from './traces-steps.ts';
import {
  expectCreatedNothing,
  experimentStart,
  persisted,
  servesPersistedReads,
  upload,
  uploadBody,
  type Json,
  type Persisted,
  type UploadAnswer,
} from './uploads-steps.ts';

interface Seen {
  body: Json;
  answer: UploadAnswer;
}

interface Stored extends Seen {
  /** What the upload created, once its runs are persisted. */
  stored: () => Promise<Persisted>;
}

interface FieldRule {
  rule: string;
  title: string;
  set: (body: Json, ids: TraceRunIds) => Json;
  /** What the upload's answer shows of the field (§2.6 lists the answer's fields). */
  check?: (seen: Seen) => void;
  /** Where the field landed once persisted: reads the spec does not show, made where the target serves them. */
  kept?: (seen: Stored) => Promise<void>;
  broken: [string, (body: Json) => Json][];
}

const sameInstant = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && Math.abs(Date.parse(a.replace(/(\.\d{3})\d+/, '$1')) - Date.parse(b)) < 1;
const rows = (body: Json) => body.results as Json[];

/** The instant of an ISO datetime written as local time at `minutes` from UTC, e.g. 2026-01-01T11:00:00+01:00. */
function withOffset(iso: unknown, minutes: number): string {
  const local = new Date(Date.parse(String(iso)) + minutes * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(minutes);
  return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
const without = (key: string) => (body: Json) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
const withField = (key: string, value: unknown) => (body: Json) => ({ ...body, [key]: value });
const row = (patch: Json | ((r: Json) => Json)) => (body: Json) => ({
  ...body,
  results: rows(body).map((r, i) => (i === 0 ? (typeof patch === 'function' ? patch(r) : { ...r, ...patch }) : r)),
});
const rowWithout = (key: string) => row((r) => without(key)(r));
const score = (patch: Json | ((f: Json) => Json)) =>
  row((r) => ({
    ...r,
    evaluation_scores: [typeof patch === 'function' ? patch({ key: 'correctness', score: 1 }) : { key: 'correctness', score: 1, ...patch }],
  }));

/**
 * The persisted run of row 0 and its feedback: a step of the rules about a field of the run. The run is
 * found by its inputs, equal as JSON (a JSON object's keys have no order); none found is
 * UPLOAD-ROW-INPUTS' finding (or UPLOAD-RESULTS', one run per row), not the rule judged through it.
 */
async function firstRow(seen: Stored): Promise<{ run: Json; feedback: Json[] }> {
  const stored = await seen.stored();
  const { inputs } = rows(seen.body)[0];
  const run = stored.runs.find((r) => isDeepStrictEqual(r.inputs, inputs));
  if (!run)
    skipForPrecondition(
      `precondition failed: no persisted run has the inputs of row 0 (${JSON.stringify(inputs)}) among ${JSON.stringify(stored.runs.map((r) => r.inputs))}`,
      ['UPLOAD-ROW-INPUTS', 'UPLOAD-RESULTS'],
    );
  return { run, feedback: stored.feedback.get(run.id as string) ?? [] };
}

/** Feedback `key` of row 0's run: a step, as firstRow; none found is UPLOAD-ROW-EVALUATION-SCORES' finding (or UPLOAD-FEEDBACK-KEY's). */
async function rowFeedback(seen: Stored, key = 'correctness'): Promise<Json> {
  const { feedback } = await firstRow(seen);
  const found = feedback.find((f) => f.key === key);
  if (!found)
    skipForPrecondition(`precondition failed: no feedback '${key}' on the run of row 0, among ${JSON.stringify(feedback)}`, [
      'UPLOAD-ROW-EVALUATION-SCORES',
      'UPLOAD-FEEDBACK-KEY',
    ]);
  return found;
}

const RULES: FieldRule[] = [
  {
    rule: 'UPLOAD-EXPERIMENT-NAME',
    title: 'experiment_name is a required string',
    set: (b) => b,
    check: ({ body, answer }) => expect(answer.experiment.name).toBe(body.experiment_name),
    broken: [
      ['missing', without('experiment_name')],
      ['a number', withField('experiment_name', 7)],
    ],
  },
  {
    rule: 'UPLOAD-EXPERIMENT-DESCRIPTION',
    title: 'experiment_description is an optional string',
    set: withField('experiment_description', 'described by the suite'),
    check: ({ answer }) => expect(answer.experiment.description).toBe('described by the suite'),
    broken: [['a number', withField('experiment_description', 1)]],
  },
  {
    rule: 'UPLOAD-EXPERIMENT-START-TIME',
    title: 'experiment_start_time is a required datetime, in any offset',
    // Written behind UTC, so as text too it comes before the rows' UTC times.
    set: (b) => ({ ...b, experiment_start_time: withOffset(b.experiment_start_time, -90) }),
    check: ({ body, answer }) =>
      expect(sameInstant(answer.experiment.start_time, body.experiment_start_time), `start_time ${String(answer.experiment.start_time)}`).toBe(true),
    broken: [
      ['missing', without('experiment_start_time')],
      ['no datetime', withField('experiment_start_time', 'early')],
    ],
  },
  {
    rule: 'UPLOAD-EXPERIMENT-END-TIME',
    title: 'experiment_end_time is a required datetime, in any offset',
    // Written ahead of UTC, so as text too it comes after the rows' UTC times.
    set: (b) => ({ ...b, experiment_end_time: withOffset(b.experiment_end_time, 120) }),
    check: ({ body, answer }) =>
      expect(sameInstant(answer.experiment.end_time, body.experiment_end_time), `end_time ${String(answer.experiment.end_time)}`).toBe(true),
    broken: [
      ['missing', without('experiment_end_time')],
      ['no datetime', withField('experiment_end_time', 1234)],
    ],
  },
  {
    rule: 'UPLOAD-DATASET-ID',
    title: 'dataset_id is a UUID naming the external dataset, given alone or beside a dataset_name',
    // Alone it is rule 2's case (UPLOAD-GENERATE-NAME); beside a name it still names the new dataset.
    set: (b, ids) => ({ ...b, dataset_id: ids.v4() }),
    check: ({ body, answer }) => expect(answer.dataset.id).toBe(body.dataset_id),
    broken: [['not a UUID', (b) => ({ ...without('dataset_name')(b), dataset_id: 'external-dataset-1' })]],
  },
  {
    rule: 'UPLOAD-DATASET-NAME',
    title: 'dataset_name is a string naming the dataset, given alone or beside a dataset_id',
    // Alone it is rule 2's case (UPLOAD-GENERATE-ID); beside an id it still names the new dataset.
    set: (b, ids) => ({ ...b, dataset_id: ids.v4() }),
    check: ({ body, answer }) => expect(answer.dataset.name).toBe(body.dataset_name),
    broken: [['a number', withField('dataset_name', 42)]],
  },
  {
    rule: 'UPLOAD-DATASET-DESCRIPTION',
    title: 'dataset_description is an optional string',
    set: withField('dataset_description', 'the dataset, described'),
    check: ({ answer }) => expect(answer.dataset.description).toBe('the dataset, described'),
    broken: [['an object', withField('dataset_description', { text: 'x' })]],
  },
  {
    rule: 'UPLOAD-EXPERIMENT-METADATA',
    title: 'experiment_metadata is an optional object of any shape',
    set: withField('experiment_metadata', { list: [1, { deep: null }], flag: true, text: 'x' }),
    check: ({ answer }) => expect((answer.experiment.extra as Json | null)?.metadata).toEqual({ list: [1, { deep: null }], flag: true, text: 'x' }),
    broken: [
      ['a string', withField('experiment_metadata', 'model=x')],
      ['an array', withField('experiment_metadata', [1, 2])],
    ],
  },
  {
    rule: 'UPLOAD-SUMMARY-SCORES',
    title: 'summary_experiment_scores is an optional array of Feedback',
    set: withField('summary_experiment_scores', [
      { key: 'overall', score: 0.25 },
      { key: 'verdict', value: 'pass' },
    ]),
    kept: async (seen) => {
      const { summary } = await seen.stored();
      expect(summary.map((f) => f.key).sort(), `experiment-level feedback: ${JSON.stringify(summary)}`).toEqual(['overall', 'verdict']);
      // Each is a Feedback as given, not its key alone.
      const byKey = new Map(summary.map((f) => [f.key, f as Json]));
      expect([byKey.get('overall')?.score, byKey.get('verdict')?.value], `the summary scores as given: ${JSON.stringify(summary)}`).toEqual([0.25, 'pass']);
    },
    broken: [
      ['an object', withField('summary_experiment_scores', { key: 'overall' })],
      ['a feedback without key', withField('summary_experiment_scores', [{ score: 1 }])],
    ],
  },
  {
    rule: 'UPLOAD-RESULTS',
    title: 'results is a required array of Row, one per dataset example with its run',
    set: (b) => b,
    // The answer's example_count may not be filled in yet (§2.6 gives no value right after an upload): the examples are counted once persisted.
    kept: async (seen) => {
      const stored = await seen.stored();
      expect(stored.examples.length, 'one example per row').toBe(rows(seen.body).length);
      expect(stored.runs.length, 'one run per row').toBe(rows(seen.body).length);
    },
    broken: [
      ['missing', without('results')],
      ['an object', withField('results', { row: 1 })],
    ],
  },
  {
    rule: 'UPLOAD-ROW-ID',
    title: "a row's row_id is a required UUID",
    set: (b) => b,
    kept: async (seen) => expect((await seen.stored()).examples.length).toBe(rows(seen.body).length),
    broken: [
      ['missing', rowWithout('row_id')],
      ['not a UUID', row({ row_id: 'row-1' })],
    ],
  },
  {
    rule: 'UPLOAD-ROW-INPUTS',
    title: "a row's inputs is a required object that becomes the input of the example and the run",
    set: row({ inputs: { question: 'deep?', context: { items: [1, 2] } } }),
    kept: async (seen) => {
      const stored = await seen.stored();
      const inputs = { question: 'deep?', context: { items: [1, 2] } };
      expect(
        stored.examples.map((e) => e.inputs),
        'the example has the inputs',
      ).toContainEqual(inputs);
      expect(
        stored.runs.map((r) => r.inputs),
        'a run has the inputs',
      ).toContainEqual(inputs);
    },
    broken: [
      ['missing', rowWithout('inputs')],
      ['a string', row({ inputs: 'deep?' })],
    ],
  },
  {
    rule: 'UPLOAD-ROW-EXPECTED-OUTPUTS',
    title: "a row's expected_outputs is an optional object, the example's outputs",
    set: row({ expected_outputs: { answer: 'expected', n: 1 } }),
    kept: async (seen) => expect((await seen.stored()).examples.map((e) => e.outputs)).toContainEqual({ answer: 'expected', n: 1 }),
    broken: [['a string', row({ expected_outputs: 'expected' })]],
  },
  {
    rule: 'UPLOAD-ROW-ACTUAL-OUTPUTS',
    title: "a row's actual_outputs is an optional object, the run's outputs",
    set: row({ actual_outputs: { answer: 'actual', n: 2 } }),
    kept: async (seen) => expect((await firstRow(seen)).run.outputs).toEqual({ answer: 'actual', n: 2 }),
    broken: [['a number', row({ actual_outputs: 2 })]],
  },
  {
    rule: 'UPLOAD-ROW-EVALUATION-SCORES',
    title: "a row's evaluation_scores is an optional array of Feedback on its run",
    set: row({
      evaluation_scores: [
        { key: 'correctness', score: 1 },
        { key: 'style', value: 'terse' },
      ],
    }),
    kept: async (seen) => expect((await firstRow(seen)).feedback.map((f) => f.key).sort()).toEqual(['correctness', 'style']),
    broken: [['an object', row({ evaluation_scores: { key: 'correctness' } })]],
  },
  {
    rule: 'UPLOAD-ROW-START-TIME',
    title: "a row's start_time is a required datetime in any offset, used with end_time for the run's latency",
    // Written ahead of UTC, so as text too it comes after the experiment's UTC start.
    set: row((r) => ({ ...r, start_time: withOffset(r.start_time, 60) })),
    kept: async (seen) => {
      const { run } = await firstRow(seen);
      expect(sameInstant(run.start_time, rows(seen.body)[0].start_time), `the run starts at ${String(run.start_time)}`).toBe(true);
      const { experiment } = await seen.stored();
      expect(experiment.latency_p50, "the rows' latencies are 2 s and 4 s").toBeGreaterThanOrEqual(2);
      expect(experiment.latency_p50, "the rows' latencies are 2 s and 4 s").toBeLessThanOrEqual(4);
    },
    broken: [
      ['missing', rowWithout('start_time')],
      ['no datetime', row({ start_time: 'soon' })],
    ],
  },
  {
    rule: 'UPLOAD-ROW-END-TIME',
    title: "a row's end_time is a required datetime, in any offset",
    // Written behind UTC, so as text too it comes before the experiment's UTC end.
    set: row((r) => ({ ...r, end_time: withOffset(r.end_time, -60) })),
    kept: async (seen) => {
      const { run } = await firstRow(seen);
      expect(sameInstant(run.end_time, rows(seen.body)[0].end_time), `the run ends at ${String(run.end_time)}`).toBe(true);
    },
    broken: [
      ['missing', rowWithout('end_time')],
      ['no datetime', row({ end_time: false })],
    ],
  },
  {
    rule: 'UPLOAD-ROW-RUN-NAME',
    title: "a row's run_name is an optional string, the run's name",
    set: row({ run_name: 'named row' }),
    kept: async (seen) => expect((await firstRow(seen)).run.name).toBe('named row'),
    broken: [['a number', row({ run_name: 3 })]],
  },
  {
    rule: 'UPLOAD-ROW-ERROR',
    title: "a row's error is an optional string, the run's error",
    set: row({ error: 'ValueError: no answer' }),
    kept: async (seen) => expect((await firstRow(seen)).run.error).toBe('ValueError: no answer'),
    broken: [['an object', row({ error: { message: 'x' } })]],
  },
  {
    rule: 'UPLOAD-ROW-RUN-METADATA',
    title: "a row's run_metadata is an optional object, the run's metadata",
    set: row({ run_metadata: { tier: 'gold', weights: [1, 2] } }),
    kept: async (seen) => expect(((await firstRow(seen)).run.extra as Json | undefined)?.metadata).toMatchObject({ tier: 'gold', weights: [1, 2] }),
    broken: [['a string', row({ run_metadata: 'gold' })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-KEY',
    title: "a Feedback's key is a required string",
    set: score({ key: 'correctness' }),
    // The feedback found by its key: rowFeedback would take its absence for this rule's precondition.
    kept: async (seen) => expect((await firstRow(seen)).feedback.map((f) => f.key)).toContain('correctness'),
    broken: [
      ['missing', score(({ key: _k, ...f }) => f)],
      ['a number', score({ key: 1 })],
    ],
  },
  {
    rule: 'UPLOAD-FEEDBACK-SCORE',
    title: "a Feedback's score is an optional number",
    set: score({ score: 0.625 }),
    kept: async (seen) => expect((await rowFeedback(seen)).score).toBe(0.625),
    broken: [['a string', score({ score: 'high' })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-VALUE',
    title: "a Feedback's value is an optional string",
    set: score({ value: 'mostly right' }),
    kept: async (seen) => expect((await rowFeedback(seen)).value).toBe('mostly right'),
    broken: [['an array', score({ value: ['a'] })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-COMMENT',
    title: "a Feedback's comment is an optional string",
    set: score({ comment: 'close enough' }),
    kept: async (seen) => expect((await rowFeedback(seen)).comment).toBe('close enough'),
    broken: [['a number', score({ comment: 5 })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-SOURCE',
    title: "a Feedback's feedback_source is an optional object whose type is a required string",
    set: score({ feedback_source: { type: 'model', metadata: { judge: 'x' } } }),
    kept: async (seen) => expect(((await rowFeedback(seen)).feedback_source as Json | undefined)?.type).toBe('model'),
    broken: [
      ['without type', score({ feedback_source: {} })],
      ['a type that is not a string', score({ feedback_source: { type: 3 } })],
      ['a string', score({ feedback_source: 'model' })],
    ],
  },
  {
    rule: 'UPLOAD-FEEDBACK-CONFIG',
    title: "a Feedback's feedback_config is an optional object",
    set: score({ feedback_config: { type: 'continuous', min: 0, max: 1 } }),
    kept: async (seen) => expect((await rowFeedback(seen)).feedback_config).toMatchObject({ type: 'continuous', min: 0, max: 1 }),
    broken: [['a string', score({ feedback_config: 'continuous' })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-CONFIG-TYPE',
    title: 'feedback_config.type is continuous, categorical or freeform',
    set: row({
      evaluation_scores: [
        { key: 'continuous', score: 0.5, feedback_config: { type: 'continuous' } },
        { key: 'categorical', score: 1, feedback_config: { type: 'categorical', categories: [{ value: 0 }, { value: 1 }] } },
        { key: 'freeform', value: 'text', feedback_config: { type: 'freeform' } },
      ],
    }),
    kept: async (seen) => {
      const { feedback } = await firstRow(seen);
      expect(feedback.map((f) => f.key).sort()).toEqual(['categorical', 'continuous', 'freeform']);
      // Each keeps its type.
      for (const f of feedback) expect((f.feedback_config as Json | undefined)?.type, `the type of '${String(f.key)}'`).toBe(f.key);
    },
    broken: [['another type', score({ feedback_config: { type: 'binary' } })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-CONFIG-MIN-MAX',
    title: 'feedback_config.min and max are optional numbers',
    set: score({ feedback_config: { type: 'continuous', min: -1, max: 10 } }),
    kept: async (seen) => expect((await rowFeedback(seen)).feedback_config).toMatchObject({ min: -1, max: 10 }),
    broken: [
      ['a string min', score({ feedback_config: { type: 'continuous', min: 'zero' } })],
      ['a string max', score({ feedback_config: { type: 'continuous', max: '10' } })],
    ],
  },
  {
    rule: 'UPLOAD-FEEDBACK-CONFIG-CATEGORIES',
    title: 'feedback_config.categories is an array of {value: number, label?: string}',
    set: score({ feedback_config: { type: 'categorical', categories: [{ value: 0, label: 'wrong' }, { value: 1 }] } }),
    kept: async (seen) =>
      expect(((await rowFeedback(seen)).feedback_config as Json | undefined)?.categories).toMatchObject([{ value: 0, label: 'wrong' }, { value: 1 }]),
    broken: [
      ['a category without value', score({ feedback_config: { type: 'categorical', categories: [{ label: 'x' }] } })],
      ['a value that is not a number', score({ feedback_config: { type: 'categorical', categories: [{ value: '1' }] } })],
      ['a label that is not a string', score({ feedback_config: { type: 'categorical', categories: [{ value: 1, label: 1 }] } })],
    ],
  },
  {
    rule: 'UPLOAD-FEEDBACK-CREATED-AT',
    title: "a Feedback's created_at is an optional datetime defaulting to the time of the upload",
    set: row({
      evaluation_scores: [
        { key: 'given', score: 1, created_at: '2025-06-01T12:00:00.000Z' },
        { key: 'defaulted', score: 1 },
      ],
    }),
    kept: async (seen) => {
      expect(sameInstant((await rowFeedback(seen, 'given')).created_at, '2025-06-01T12:00:00.000Z'), 'a given created_at is kept').toBe(true);
      const defaulted = Date.parse(String((await rowFeedback(seen, 'defaulted')).created_at));
      expect(Math.abs(defaulted - Date.parse(seen.answer.dataset.created_at)), 'a missing created_at is the upload time').toBeLessThan(60_000);
    },
    broken: [['no datetime', score({ created_at: 'now' })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-MODIFIED-AT',
    title: "a Feedback's modified_at is an optional datetime defaulting to the time of the upload",
    set: row({
      evaluation_scores: [
        { key: 'given', score: 1, modified_at: '2025-06-02T12:00:00.000Z' },
        { key: 'defaulted', score: 1 },
      ],
    }),
    kept: async (seen) => {
      expect(sameInstant((await rowFeedback(seen, 'given')).modified_at, '2025-06-02T12:00:00.000Z'), 'a given modified_at is kept').toBe(true);
      const defaulted = Date.parse(String((await rowFeedback(seen, 'defaulted')).modified_at));
      expect(Math.abs(defaulted - Date.parse(seen.answer.dataset.created_at)), 'a missing modified_at is the upload time').toBeLessThan(60_000);
    },
    broken: [['no datetime', score({ modified_at: 17 })]],
  },
  {
    rule: 'UPLOAD-FEEDBACK-CORRECTION',
    title: "a Feedback's correction is an optional object or string",
    set: row({
      evaluation_scores: [
        { key: 'as-object', score: 0, correction: { answer: '2' } },
        { key: 'as-string', score: 0, correction: 'two' },
      ],
    }),
    kept: async (seen) => {
      expect((await rowFeedback(seen, 'as-object')).correction).toEqual({ answer: '2' });
      expect((await rowFeedback(seen, 'as-string')).correction).toBe('two');
    },
    broken: [['a number', score({ correction: 2 })]],
  },
];

for (const { rule, title, set, check, kept, broken } of RULES) {
  // The answer to an upload with the field set as the rule says is what the spec shows: accepted, and
  // what the answer's fields show of it; where the field landed, where the target serves those reads.
  test(title, { tag: `@${rule}` }, async ({ traceRunIds: ids, platform, testKey, conformanceRun, time }) => {
    const body = set(uploadBody(testKey, ids, experimentStart(conformanceRun)), ids);
    const res = await upload(platform, body);
    expectStatus(res, 200);
    check?.({ body, answer: res.json });
    if (!kept || !servesPersistedReads(platform, 'where the field landed once persisted')) return;
    let stored: Persisted | undefined;
    await kept({ body, answer: res.json, stored: async () => (stored ??= await persisted(platform, time, res.json)) });
  });

  // §2.6 says what the field is; that an upload breaking it is refused and creates nothing is the SHOULD UPLOAD-VIOLATION-4XX.
  test(`${title}: an upload with it ${broken.map(([what]) => what).join(' or ')} is refused and creates nothing`, { tag: '@UPLOAD-VIOLATION-4XX' }, async ({
    traceRunIds: ids,
    platform,
    testKey,
    conformanceRun,
    time,
  }) => {
    for (const [i, [what, breaks]] of broken.entries()) {
      const bad = breaks(uploadBody(`${testKey}-broken-${i}`, ids, experimentStart(conformanceRun)));
      expectJsonError(await upload(platform, bad));
      await expectCreatedNothing(platform, time, bad, `the upload with ${what}`);
    }
  });
}
