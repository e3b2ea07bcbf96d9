// §5: the API key and workspace selection on the platform API.
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { clientWithKey, targetApiKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import type { ExperimentUploadResponse } from '../../specs/types/platform-api.ts';
import {
  baseTime,
  expectNoOtherFeedback,
  expectNoRun,
  isoWith,
  multipartBody,
  readTraceRun,
  readWritten,
  runParts,
  runTree,
  servesRead,
  updateTraceRun,
} from './traces-steps.ts';
import { expectCreatedNothing, experimentStart, uploadBody } from './uploads-steps.ts';

// §5 says how a request authenticates, not what one without a key gets: that it is refused is the
// service's (AUTH-PLATFORM-MISSING-CREDENTIALS, a SHOULD, with tests of its own).
test(
  'the API key authenticates in the X-Api-Key header, whatever the case of its name',
  { tag: '@AUTH-PLATFORM-API-KEY' },
  async ({ traceRunIds: ids, conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const bare = clientWithKey(conformanceRun, 'platform-api', testInfo, undefined)!;
    const key = targetApiKey(conformanceRun, targetCredentials) ?? '';
    for (const header of ['X-Api-Key', 'x-api-key', 'X-API-KEY']) {
      const id = ids.v7(baseTime(conformanceRun));
      expectStatus(
        await bare.post('/runs', { id, name: header, run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }, { headers: { [header]: key } }),
        '2xx',
      );
      expectStatus(
        await bare.post('/api/v1/datasets/upload-experiment', uploadBody(`${testKey}-${header}`, ids, experimentStart(conformanceRun)), {
          headers: { [header]: key },
        }),
        200,
      );
      // The run is the key's, read with it, where the target serves a read (the answers above judge the rule elsewhere).
      if (servesRead(bare, 'readRun', 'the run reads back with the key')) await readTraceRun(bare, time, id, { headers: { [header]: key } });
    }
  },
);

test(
  'a missing or invalid API key answers 401 or 403 with a JSON error body and changes nothing',
  { tag: '@AUTH-PLATFORM-MISSING-CREDENTIALS' },
  async ({ traceRunIds: ids, platform, conformanceRun, testKey, time }, testInfo) => {
    for (const key of [undefined, 'apc-not-a-valid-key']) {
      const client = clientWithKey(conformanceRun, 'platform-api', testInfo, key)!;
      const id = ids.v7(baseTime(conformanceRun));
      expectJsonError(await client.post('/runs', { id, name: 'refused', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }), [401, 403]);
      await expectNoRun(platform, time, id, 'the refused run');
      const body = uploadBody(`${testKey}-${key ?? 'none'}`, ids, experimentStart(conformanceRun));
      expectJsonError(await client.post('/api/v1/datasets/upload-experiment', body), [401, 403]);
      await expectCreatedNothing(platform, time, body, 'the upload without a valid key');
      expectJsonError(await client.post('/runs/query', {}), [401, 403]);
    }
  },
);

test(
  'every write refuses a missing or invalid API key with 401 or 403 and changes nothing: updates, batches and feedback too',
  { tag: '@AUTH-PLATFORM-MISSING-CREDENTIALS' },
  async ({ traceRunIds: ids, platform, conformanceRun, time }, testInfo) => {
    const kept = ids.v7(baseTime(conformanceRun));
    precondition(
      await platform.post('/runs', { id: kept, name: 'kept', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3), inputs: { v: 1 } }),
      'post a run',
    );
    const before = await readWritten(platform, time, `/runs/${kept}`);
    precondition(before, 'read the run');
    for (const key of [undefined, 'apc-not-a-valid-key']) {
      const client = clientWithKey(conformanceRun, 'platform-api', testInfo, key)!;
      expectJsonError(await updateTraceRun(client, kept, { outputs: { v: 2 }, end_time: isoWith(baseTime(conformanceRun) + 1000, 3) }), [401, 403]);
      // A batch run carries the trace_id and dotted_order its caller computed (§4.3).
      const [batched] = runTree(ids, [null], { start: baseTime(conformanceRun) });
      expectJsonError(await client.post('/runs/batch', { post: [batched] }), [401, 403]);
      await expectNoRun(platform, time, batched.id, 'the run of the refused batch');
      expectJsonError(await client.post('/feedback', { id: ids.v4(), run_id: kept, key: 'refused', score: 1 }), [401, 403]);
    }
    const after = await platform.get(`/runs/${kept}`);
    expect(after.json, after.describe('the run is unchanged')).toEqual(before.json);
    await expectNoOtherFeedback(platform, time, kept, 'the refused writes');
  },
);

test(
  'the status code for missing or invalid credentials on the platform API',
  { tag: '@ERROR-CREDENTIALS-STATUS-PLATFORM' },
  async ({ conformanceRun, observe }, testInfo) => {
    const answers: string[] = [];
    for (const [what, key] of [
      ['no key', undefined],
      ['an invalid key', 'apc-not-a-valid-key'],
    ] as const) {
      const res = await clientWithKey(conformanceRun, 'platform-api', testInfo, key)!.post('/runs/query', {});
      answers.push(`${what} → ${res.status} ${res.text.slice(0, 100)}`);
    }
    observe('ERROR-CREDENTIALS-STATUS-PLATFORM', answers.join('; '));
  },
);

test('a key linked to several workspaces selects one with x-tenant-id', { tag: '@AUTH-PLATFORM-TENANT-ID' }, async ({
  traceRunIds: ids,
  credentials,
  testKey,
  conformanceRun,
  time,
}) => {
  const multi = credentials.client('platform-api', credentials.apiKey('multi-workspace'));
  const [home, other] = credentials.workspaces('multi-workspace');
  const selected = { 'x-tenant-id': other };
  const id = ids.v7(baseTime(conformanceRun));
  expectStatus(
    await multi.post('/runs', { id, name: 'selected', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }, { headers: selected }),
    '2xx',
  );
  // What the spec shows: the upload's dataset names its workspace (§2.6 tenant_id).
  const answer = await multi.post<ExperimentUploadResponse>('/api/v1/datasets/upload-experiment', uploadBody(testKey, ids, experimentStart(conformanceRun)), {
    headers: selected,
  });
  expectStatus(answer, 200);
  expect(answer.json.dataset.tenant_id, answer.describe('the dataset belongs to the selected workspace')).toBe(other);
  // Updates and batch ingestion (both in §4.3) select the workspace too, not only creates.
  expectStatus(await updateTraceRun(multi, id, { outputs: { selected: true } }, { headers: selected }), '2xx');
  const [batched] = runTree(ids, [null], { start: baseTime(conformanceRun) + 1000 });
  const { body, contentType } = multipartBody(runParts('post', batched));
  expectStatus(await multi.post('/runs/multipart', undefined, { rawBody: body, headers: { ...selected, 'content-type': contentType } }), '2xx');
  // Where the runs went shows in reads the spec does not show, where the target serves them.
  if (!servesRead(multi, 'readRun', 'the runs read back in the selected workspace only')) return;
  const updated = await readTraceRun<{ outputs?: unknown }>(multi, time, id, { headers: selected, ready: (r) => (r.outputs ?? null) !== null });
  expect(updated.json.outputs, updated.describe('the update reached the run in the selected workspace')).toEqual({ selected: true });
  await readTraceRun(multi, time, batched.id, { headers: selected });
  // Statuses for unknown ids and refused credentials are not shown (§7): any 4xx is a refusal.
  await expectNoRun(multi, time, id, "the other workspace's run", { 'x-tenant-id': home });
  await expectNoRun(multi, time, id, "the other workspace's run, without x-tenant-id");
  await readTraceRun(credentials.client('platform-api', credentials.apiKey('second-workspace')), time, id);
  const orgKey = credentials.client('platform-api', credentials.apiKey('org-scoped'));
  expectStatus(await orgKey.get(`/runs/${id}`), '4xx');
  await readTraceRun(orgKey, time, id, { headers: selected });
  expectStatus(await multi.get(`/runs/${id}`, { headers: { 'x-tenant-id': '00000000-0000-4000-8000-0000000000aa' } }), '4xx');
});
