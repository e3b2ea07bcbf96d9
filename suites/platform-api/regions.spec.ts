// §1: the platform API in two regions, US and EU, each at its own address; an account's data is
// stored in the region where it signed up. The suites send the EU address an EU account's key
// (role eu-primary) where the target names one, and the US address the target's key.
import { expectJsonError, expectStatus, precondition, rulesOfStep } from '../../harness/checks/index.ts';
import { skipDeclared } from '../../harness/checks/attribution.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { clientWithKey, targetApiKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import { baseTime, isoWith, readTraceRun, runTree, servesRead } from './traces-steps.ts';
import { experimentStart, readDataset, readExperiment, upload, uploadBody } from './uploads-steps.ts';

/** What explains a step at the EU address that failed: its operation's rules, and REGION-TWO-REGIONS where the address serves nothing. */
const atEu = (res: ApiResponse) => [...rulesOfStep(res), 'REGION-TWO-REGIONS'];

/**
 * The other region answers none of an account's data: no 2xx, whatever it says instead. That is
 * evidence only where the same read at that address answers what is held there (`held`, read
 * before as evidence): where it answers nothing, a failed precondition explained by the read's rule.
 */
function answersNone(res: ApiResponse, held: ApiResponse, what: string): void {
  precondition(held, `${what}: the same read of what that address holds`);
  expect(res.status >= 200 && res.status < 300, res.describe(what)).toBe(false);
}

test('the platform API is served in a US and an EU region, each at its own address', { tag: '@REGION-TWO-REGIONS' }, async ({
  traceRunIds: ids,
  platform,
  platformEu,
  conformanceRun,
}) => {
  expect(conformanceRun.target.endpoints['platform-api'], 'the US address').toBeTruthy();
  expect(conformanceRun.target.endpoints['platform-api-eu'], 'the EU address').toBeTruthy();
  expect(conformanceRun.target.endpoints['platform-api'], 'two addresses').not.toBe(conformanceRun.target.endpoints['platform-api-eu']);
  // Each address serves the platform API: a request the spec shows (§4.3), answered at the US
  // address, is answered at the EU address too.
  const run = (name: string) => ({ id: ids.v7(baseTime(conformanceRun)), name, run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) });
  precondition(await platform.post('/runs', run('us')), 'post a run at the US address');
  expectStatus(await platformEu.post('/runs', run('eu')), '2xx');
});

test(
  "an account's data is held by its home region, and the other region's address answers none of it",
  { tag: '@REGION-DATA-RESIDENCY' },
  async ({ traceRunIds: ids, platform, platformEu, testKey, conformanceRun, time, targetCredentials }, testInfo) => {
    const usRun = ids.v7(baseTime(conformanceRun));
    const euRun = ids.v7(baseTime(conformanceRun));
    precondition(
      await platform.post('/runs', { id: usRun, name: 'us', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }),
      'post a run in the US',
    );
    const euPost = await platformEu.post('/runs', { id: euRun, name: 'eu', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) });
    precondition(euPost, 'post a run in the EU', atEu(euPost));
    // What the spec shows: the same dataset name in the US names another dataset than in the EU.
    const eu = await upload(platformEu, uploadBody(`${testKey}-eu`, ids, experimentStart(conformanceRun)));
    precondition(eu, 'upload an experiment in the EU', atEu(eu));
    const us = await upload(platform, { ...uploadBody(`${testKey}-us`, ids, experimentStart(conformanceRun)), dataset_name: eu.json.dataset.name });
    expectStatus(us, 200);
    expect(us.json.dataset.id, us.describe('the same name in the US is another dataset')).not.toBe(eu.json.dataset.id);
    // Reads the spec does not show, where the target serves them: each home region holds what was written there,
    // once it is persisted, and the other region's address answers none of it, asked by the other region's
    // account and by the own key at the other address.
    if (servesRead(platform, 'readRun', 'the runs read back at home only')) {
      const [usHeld, euHeld] = [await readTraceRun(platform, time, usRun), await readTraceRun(platformEu, time, euRun)];
      answersNone(await platformEu.get(`/runs/${usRun}`), euHeld, 'the US run asked by the EU account');
      answersNone(await platform.get(`/runs/${euRun}`), usHeld, 'the EU run asked by the US account');
      const usKeyInEu = clientWithKey(conformanceRun, 'platform-api-eu', testInfo, targetApiKey(conformanceRun, targetCredentials))!;
      answersNone(await usKeyInEu.get(`/runs/${usRun}`), euHeld, 'the US run asked at the EU address with its own key');
    }
    if (servesRead(platform, 'readDataset', 'the datasets read back at home only')) {
      const [usHeld, euHeld] = [await readDataset(platform, time, us.json.dataset.id), await readDataset(platformEu, time, eu.json.dataset.id)];
      answersNone(await platform.get(`/api/v1/datasets/${eu.json.dataset.id}`), usHeld, 'the EU dataset asked at the US address');
      answersNone(await platformEu.get(`/api/v1/datasets/${us.json.dataset.id}`), euHeld, 'the US dataset asked at the EU address');
    }
    if (servesRead(platform, 'readSession', 'the experiments read back at home only')) {
      const [usHeld, euHeld] = [await readExperiment(platform, time, us.json.experiment.id), await readExperiment(platformEu, time, eu.json.experiment.id)];
      answersNone(await platform.get(`/api/v1/sessions/${eu.json.experiment.id}`), usHeld, 'the EU experiment asked at the US address');
      answersNone(await platformEu.get(`/api/v1/sessions/${us.json.experiment.id}`), euHeld, 'the US experiment asked at the EU address');
    }
  },
);

test(
  "a key is known in its account's home region only: the other region refuses it as invalid",
  { tag: '@REGION-HOME-KEY-ONLY' },
  async ({ traceRunIds: ids, credentials, conformanceRun, testKey }, testInfo) => {
    const euKey = credentials.published.api_keys.find((k) => k.role === 'eu-primary')?.key;
    skipDeclared(!euKey, `target '${conformanceRun.target.name}' names no key of an EU account: name one under credentials.api_keys with role eu-primary`);
    const usKey = credentials.apiKey('primary');
    const at = (endpoint: 'platform-api' | 'platform-api-eu', key: string) => clientWithKey(conformanceRun, endpoint, testInfo, key)!;
    // Each key works at home, so a refusal elsewhere is the region's, not the key's.
    precondition(await at('platform-api', usKey).post('/runs/query', { limit: 1 }), 'the US key at the US address');
    const euHome = await at('platform-api-eu', euKey!).post('/runs/query', { limit: 1 });
    precondition(euHome, 'the EU key at the EU address', atEu(euHome));
    expectJsonError(await at('platform-api-eu', usKey).post('/runs/query', { limit: 1 }), [401, 403]);
    expectJsonError(await at('platform-api', euKey!).post('/runs/query', { limit: 1 }), [401, 403]);
    // Writes too: the other region stores nothing for a key it does not know.
    const id = ids.v7(baseTime(conformanceRun));
    expectJsonError(
      await at('platform-api-eu', usKey).post('/runs', { id, name: 'elsewhere', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }),
      [401, 403],
    );
    expectJsonError(await at('platform-api-eu', usKey).post('/runs/batch', { post: runTree(ids, [null], { start: baseTime(conformanceRun) }) }), [401, 403]);
    expectJsonError(
      await at('platform-api-eu', usKey).post('/api/v1/datasets/upload-experiment', uploadBody(`${testKey}-eu`, ids, experimentStart(conformanceRun))),
      [401, 403],
    );
    expectJsonError(
      await at('platform-api', euKey!).post('/runs', {
        id: ids.v7(baseTime(conformanceRun)),
        name: 'elsewhere',
        run_type: 'chain',
        start_time: isoWith(baseTime(conformanceRun), 3),
      }),
      [401, 403],
    );
  },
);
