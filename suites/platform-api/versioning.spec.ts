// §9: the version segments of platform API paths.
import { expectStatus } from '../../harness/checks/index.ts';
import { expect, test } from './fixtures.ts';
import { baseTime, isoWith, multipartBody, readTraceRun, readWritten, runParts, runTree, updateTraceRun } from './traces-steps.ts';
import { experimentStart, uploadBody } from './uploads-steps.ts';

test('run ingestion is served without a version segment and the upload under /api/v1', { tag: '@VERSION-PLATFORM-PATHS' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
}) => {
  const id = ids.v7(baseTime(conformanceRun));
  expectStatus(await platform.post('/runs', { id, name: 'bare', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }), '2xx');
  expectStatus(await updateTraceRun(platform, id, { outputs: {} }), '2xx');
  const { body, contentType } = multipartBody(runTree(ids, [null], { start: baseTime(conformanceRun) }).flatMap((r) => runParts('post', r)));
  expectStatus(await platform.post('/runs/multipart', undefined, { rawBody: body, headers: { 'content-type': contentType } }), '2xx');
  expectStatus(await platform.post('/api/v1/datasets/upload-experiment', uploadBody(testKey, ids, experimentStart(conformanceRun))), 200);
});

test('platform routes are also served under /api/v1', { tag: '@VERSION-PLATFORM-API-V1-ALIAS' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  time,
}) => {
  const tree = runTree(ids, [null, 0], { start: baseTime(conformanceRun) });
  const id = ids.v7(baseTime(conformanceRun));
  expectStatus(await platform.post('/api/v1/runs', { id, name: 'prefixed', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3) }), '2xx');
  expectStatus(await updateTraceRun(platform, id, { outputs: { ok: true } }, { base: '/api/v1' }), '2xx');
  const read = await readWritten<{ outputs?: unknown }>(platform, time, `/api/v1/runs/${id}`, { ready: (r) => (r.outputs ?? null) !== null });
  expectStatus(read, 200);
  expect(read.json.outputs, read.describe('the prefixed routes reach the same runs')).toEqual({ ok: true });
  const { body, contentType } = multipartBody(tree.flatMap((r) => runParts('post', r)));
  expectStatus(await platform.post('/api/v1/runs/multipart', undefined, { rawBody: body, headers: { 'content-type': contentType } }), '2xx');
  expectStatus(await platform.post('/api/v1/runs/batch', { post: runTree(ids, [null], { start: baseTime(conformanceRun) + 1000 }) }), '2xx');
  expectStatus(await platform.post('/api/v1/runs/query', { id: [tree[0].id] }), 200);
  expectStatus(await platform.get('/api/v1/info'), 200);
  expectStatus(await platform.post('/api/v1/feedback', { run_id: tree[0].id, key: 'prefixed' }), '2xx');
  await readTraceRun(platform, time, tree[1].id);
});
