// §4, §7: JSON payloads, the error shape, and bad input on every platform API endpoint.
import { expectJsonError, expectRefused, expectSchema, expectStatus, precondition } from '../../harness/checks/index.ts';
import { clientWithKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { OAuthProviders, withEveryField } from './authenticate-steps.ts';
import { baseTime, expectNoOtherFeedback, expectNoRun, isoWith, multipartBody, readWritten, runParts, runTree, updateTraceRun } from './traces-steps.ts';
import { expectCreatedNothing, experimentStart, upload, uploadBody } from './uploads-steps.ts';

const isJson = (res: ApiResponse) => /^application\/(.+\+)?json/i.test(res.headers['content-type'] ?? '');

test('JSON request bodies are accepted, answers are JSON, and multipart is the stated exception', { tag: '@ERROR-JSON-PAYLOADS-PLATFORM' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
}) => {
  // The answers of the operations the spec shows (§4); reads it does not show are no evidence of its payloads.
  const id = ids.v7(baseTime(conformanceRun));
  const json = { 'content-type': 'application/json' };
  const answers = [
    await platform.post('/runs', { id, name: 'json', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }, { headers: json }),
    await updateTraceRun(platform, id, { outputs: {} }, { headers: json }),
  ];
  const oauth = new OAuthProviders(conformanceRun.target);
  const authn = await withEveryField(platform, { provider: oauth.first, scopes: [], user_id: `json-${testKey}` });
  // A refusal of a provider this run made up answers no request the target should accept: the other answers judge the rule.
  if (!oauth.refusedMadeUp(authn, oauth.first)) answers.push(authn);
  answers.push(await upload(platform, uploadBody(testKey, ids, experimentStart(conformanceRun))));
  const tree = runTree(ids, [null], { start: baseTime(conformanceRun) });
  const { body, contentType } = multipartBody(tree.flatMap((r) => runParts('post', r)));
  answers.push(await platform.post('/runs/multipart', undefined, { rawBody: body, headers: { 'content-type': contentType } }));
  for (const res of answers) {
    expectStatus(res, '2xx');
    // An answer without a body has no payload to be JSON (the ingestion responses are not shown, §4.3).
    if (res.text !== '') expect(isJson(res), res.describe('a JSON content-type')).toBe(true);
  }
});

test('an error body is a JSON object with detail or error', { tag: '@ERROR-SHAPE-PLATFORM' }, async ({ traceRunIds, platform, conformanceRun }, testInfo) => {
  const refused = [
    await platform.get(`/runs/${traceRunIds.v4()}`),
    // An object for a string: no validator takes it, however lax (a coercing one takes 1 for '1').
    await platform.post('/v2/auth/authenticate', { provider: { name: 'p' }, scopes: [] }),
    await platform.post('/runs/batch', { post: [{ name: 'no id' }] }),
    await clientWithKey(conformanceRun, 'platform-api', testInfo, undefined)!.post('/runs/query', {}),
  ];
  for (const res of refused) {
    expectJsonError(res);
    const body = res.json as { detail?: unknown; error?: unknown };
    const shaped = typeof body.error === 'string' || typeof body.detail === 'string' || (res.status === 422 && Array.isArray(body.detail));
    expect(shaped, res.describe('detail (a string, or a ValidationError array on 422) or error (a string)')).toBe(true);
    if (res.status === 422 && Array.isArray(body.detail)) expectSchema(res, 'platform-api', 'HTTPValidationError');
  }
});

test.describe('bad input on every endpoint answers 4xx in the documented shape, never 5xx', { tag: '@ERROR-BAD-INPUT-PLATFORM' }, () => {
  test('malformed ids, JSON and multipart', async ({ platform }) => {
    const json = { 'content-type': 'application/json' };
    const answers = [
      await platform.get('/runs/%20'),
      await platform.patch('/runs/1234', { outputs: {} }),
      await platform.post('/runs', undefined, { rawBody: '{', headers: json }),
      await platform.post('/runs', undefined, { rawBody: '42', headers: json }),
      await platform.post('/runs/batch', undefined, { rawBody: '[', headers: json }),
      await platform.post('/runs/batch', { post: [1, 2] }),
      await platform.post('/runs/multipart', undefined, { rawBody: 'not multipart', headers: { 'content-type': 'text/plain' } }),
      await platform.post('/runs/multipart', undefined, { rawBody: '--x\r\nbroken', headers: { 'content-type': 'multipart/form-data; boundary=x' } }),
      await platform.post('/runs/query', { limit: 'ten' }),
      await platform.post('/feedback', { key: 5 }),
      await platform.get('/feedback/not-a-uuid'),
      await platform.post('/api/v1/datasets/upload-experiment', undefined, { rawBody: 'null', headers: json }),
      await platform.get('/api/v1/datasets/nope'),
      await platform.get('/api/v1/sessions/nope'),
      await platform.get('/api/v1/examples'),
      await platform.post('/v2/auth/authenticate', undefined, { rawBody: '{"provider":', headers: json }),
    ];
    for (const res of answers) {
      expectJsonError(res);
      if (res.status === 422 && Array.isArray((res.json as { detail?: unknown }).detail)) expectSchema(res, 'platform-api', 'HTTPValidationError');
    }
  });
});

test('a refused request creates and changes nothing', { tag: '@ERROR-REFUSED-UNCHANGED-PLATFORM' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const kept = ids.v7(start);
  precondition(await platform.post('/runs', { id: kept, name: 'kept', run_type: 'chain', start_time: isoWith(start, 3), inputs: { v: 1 } }), 'post a run');
  const before = await readWritten(platform, time, `/runs/${kept}`);
  precondition(before, 'read the run');
  const fresh = runTree(ids, [null, 0], { start });
  const refusedUpload = { ...uploadBody(testKey, ids, experimentStart(conformanceRun)), results: 'none' };
  const refused = [
    await platform.patch(`/runs/${kept}`, { outputs: { v: 2 }, end_time: 'later' }),
    await platform.patch(`/runs/${kept}`, { trace_id: ids.v4(), outputs: { v: 3 } }),
    await platform.post('/runs/batch', { post: [fresh[0], { ...fresh[1], dotted_order: 'broken' }] }),
    await upload(platform, refusedUpload),
    await platform.post('/feedback', { run_id: kept, key: ['not', 'a', 'string'] }),
  ];
  // The rule is about 4xx answers; their body is ERROR-SHAPE-PLATFORM's.
  for (const res of refused) expectRefused(res);
  const after = await platform.get(`/runs/${kept}`);
  expect(after.json, after.describe('the run is unchanged')).toEqual(before.json);
  for (const r of fresh) await expectNoRun(platform, time, r.id, 'a run of the refused batch');
  await expectCreatedNothing(platform, time, refusedUpload, 'the refused upload');
  await expectNoOtherFeedback(platform, time, kept, 'the refused requests');
});

test('the status code for unknown ids on the platform API', { tag: '@ERROR-UNKNOWN-ID-STATUS-PLATFORM' }, async ({ traceRunIds, platform, observe }) => {
  const unknown = traceRunIds.v4();
  const answers = [await platform.get(`/runs/${unknown}`), await platform.patch(`/runs/${unknown}`, { outputs: {} })];
  observe(
    'ERROR-UNKNOWN-ID-STATUS-PLATFORM',
    answers.map((r) => `${r.method} ${r.path.replace(unknown, '{unknown}')} → ${r.status} ${r.text.replace(unknown, '{unknown}').slice(0, 80)}`).join('; '),
  );
});
