// §1: the platform API in two regions, US and EU, each at its own address with its own data.
import { expectJsonError, expectStatus, precondition } from '../checks/index.ts';
import { expect, test } from '../fixtures.ts';
import { baseTime, isoWith, RunIds } from './traces.ts';
import { experimentStart, upload, uploadBody } from './uploads.ts';

test('the platform API is served in a US and an EU region, each at its own address', { tag: '@REGION-TWO-REGIONS' }, async ({ platform, platformEu, run }) => {
  expect(run.target.planes['platform-api'], 'the US address').toBeTruthy();
  expect(run.target.planes['platform-api-eu'], 'the EU address').toBeTruthy();
  expect(run.target.planes['platform-api'], 'two addresses').not.toBe(run.target.planes['platform-api-eu']);
  for (const region of [platform, platformEu]) {
    const res = await region.post('/runs/query', { limit: 1 });
    expectStatus(res, 200);
  }
});

test('what is written through one region is held by that region only', { tag: '@REGION-DATA-RESIDENCY' }, async ({ platform, platformEu, scope, run }) => {
  const ids = new RunIds(scope, run);
  const usRun = ids.v7(baseTime(run));
  const euRun = ids.v7(baseTime(run));
  precondition(await platform.post('/runs', { id: usRun, name: 'us', run_type: 'chain', start_time: isoWith(baseTime(run), 3) }), 'post a run in the US');
  precondition(await platformEu.post('/runs', { id: euRun, name: 'eu', run_type: 'chain', start_time: isoWith(baseTime(run), 3) }), 'post a run in the EU');
  expectStatus(await platform.get(`/runs/${usRun}`), 200);
  expectStatus(await platformEu.get(`/runs/${euRun}`), 200);
  expectJsonError(await platformEu.get(`/runs/${usRun}`), 404);
  expectJsonError(await platform.get(`/runs/${euRun}`), 404);
  const eu = await upload(platformEu, uploadBody(`${scope}-eu`, ids, experimentStart(run)));
  precondition(eu, 'upload an experiment in the EU');
  expectJsonError(await platform.get(`/api/v1/datasets/${eu.json.dataset.id}`), 404);
  expectJsonError(await platform.get(`/api/v1/sessions/${eu.json.experiment.id}`), 404);
  const us = await upload(platform, { ...uploadBody(`${scope}-us`, ids, experimentStart(run)), dataset_name: eu.json.dataset.name });
  expectStatus(us, 200);
  expect(us.json.dataset.id, us.describe('the same name in the US is another dataset')).not.toBe(eu.json.dataset.id);
});
