import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
import { refusalOf } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import type { ExperimentUploadRequest as UploadRequest } from '../../specs/types/platform-api.ts';
import { ExperimentStore, PERSIST_DELAY_MS } from './experiments.ts';
import { TraceRunStore } from './trace-runs.ts';

function setup() {
  const clock = new VirtualClock();
  const ids = new IdGenerator('experiments');
  const traceRuns = new TraceRunStore({ clock, ids });
  return { clock, traceRuns, experiments: new ExperimentStore({ clock, ids, traceRuns }) };
}

const ROW = '5b0c7e1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d';
const upload = (extra: Partial<UploadRequest> = {}): UploadRequest => ({
  experiment_name: 'exp',
  experiment_start_time: '2026-01-01T00:00:00Z',
  experiment_end_time: '2026-01-01T01:00:00Z',
  dataset_name: 'ds',
  summary_experiment_scores: [{ key: 'overall', score: 1 }],
  results: [
    {
      row_id: ROW,
      inputs: { q: 1 },
      expected_outputs: { a: 1 },
      start_time: '2026-01-01T00:10:00Z',
      end_time: '2026-01-01T00:10:02Z',
      evaluation_scores: [{ key: 'c', score: 1 }],
    },
    {
      row_id: 'aa0c7e1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d',
      inputs: { q: 2 },
      start_time: '2026-01-01T00:20:00Z',
      end_time: '2026-01-01T00:20:04Z',
      error: 'boom',
      evaluation_scores: [{ key: 'c', score: 0 }],
    },
  ],
  ...extra,
});

test('statistics are null on upload and filled once the runs are persisted; tokens and cost stay null', () => {
  const { clock, experiments, traceRuns } = setup();
  const { dataset, experiment } = experiments.upload('w', upload());
  expect([dataset.externally_managed, dataset.example_count, dataset.session_count]).toEqual([true, 2, 1]);
  expect([experiment.latency_p50, experiment.feedback_stats, experiment.run_count]).toEqual([null, null, null]);
  clock.advance(PERSIST_DELAY_MS);
  const persisted = experiments.experiment('w', experiment.id)!;
  expect(persisted).toMatchObject({ run_count: 2, latency_p50: 3, error_rate: 0.5, total_tokens: null, total_cost: null });
  expect(persisted.latency_p99).toBeCloseTo(3.98);
  expect(persisted.feedback_stats).toMatchObject({ c: { n: 2, avg: 0.5 } });
  expect(persisted.session_feedback_stats).toMatchObject({ overall: { n: 1, avg: 1 } });
  expect(traceRuns.query('w', { session: [experiment.id] }).runs.map((r) => r.inputs)).toEqual(expect.arrayContaining([{ q: 1 }, { q: 2 }]));
});

test('rule 1 and rule 4 are refused with 422 naming the rule, creating nothing', () => {
  const { experiments } = setup();
  const none = refusalOf(() => experiments.upload('w', upload({ dataset_name: undefined })));
  expect([none?.status, none?.issues?.[0].msg]).toEqual([422, expect.stringContaining('rule 1')]);
  const late = refusalOf(() => experiments.upload('w', upload({ experiment_end_time: '2026-01-01T00:15:00Z' })));
  expect([late?.status, late?.issues?.map((i) => i.loc)]).toEqual([
    422,
    [
      ['body', 'results', 1, 'start_time'],
      ['body', 'results', 1, 'end_time'],
    ],
  ]);
  expect(experiments.listDatasets('w', {})).toEqual([]);
});

test('rules 2 and 3: a generated name or id, and the same dataset on a second upload', () => {
  const { experiments } = setup();
  const id = '0d6e2c1b-3a4f-4b5c-9d7e-8f0a1b2c3d4e';
  const first = experiments.upload('w', upload({ dataset_name: undefined, dataset_id: id }));
  expect([first.dataset.id, first.dataset.name]).toEqual([id, 'dataset-0d6e2c1b']);
  const second = experiments.upload('w', upload({ experiment_name: 'exp2', dataset_name: 'dataset-0d6e2c1b' }));
  expect([second.dataset.id, second.dataset.session_count, second.experiment.test_run_number]).toEqual([id, 2, 2]);
  expect(refusalOf(() => experiments.upload('w', upload({ experiment_name: 'exp3', dataset_id: id, dataset_name: 'another' })))?.status).toBe(409);
});

test('rules 5 and 6: a platform dataset refuses uploads by name and by id', () => {
  const { experiments } = setup();
  const platform = experiments.createDataset('w', { name: 'made-here' });
  expect(refusalOf(() => experiments.upload('w', upload({ dataset_name: 'made-here' })))?.status).toBe(409);
  expect(refusalOf(() => experiments.upload('w', upload({ dataset_name: undefined, dataset_id: platform.id })))?.status).toBe(409);
  expect(experiments.readDataset('w', platform.id).session_count).toBe(0);
  expect(experiments.upload('other-workspace', upload({ dataset_name: 'made-here' })).dataset.externally_managed).toBe(true);
});

test('a dataset refused for its taken name draws no id: the next ids are those of a store that never saw it', () => {
  const refused = setup().experiments;
  const untouched = setup().experiments;
  refused.createDataset('w', { name: 'taken' });
  untouched.createDataset('w', { name: 'taken' });
  expect(refusalOf(() => refused.createDataset('w', { name: 'taken' }))?.status).toBe(409);
  expect(refused.createDataset('w', { name: 'next' }).id).toBe(untouched.createDataset('w', { name: 'next' }).id);
});
