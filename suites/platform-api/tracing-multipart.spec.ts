// §2.5, §4.3: batch ingestion with POST /runs/multipart, in the layout the official client
// sends (langsmith JS client, langsmith-sdk js/src/client.ts); the caller computes trace_id and dotted_order.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { expectJsonError, expectRefused, expectStatus } from '../../harness/checks/index.ts';
import { skipDeclared, skipForMachine } from '../../harness/checks/attribution.ts';
import { expect, test } from './fixtures.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import {
  baseTime,
  expectNoRun,
  servesRead,
  multipartBody,
  readFeedback,
  readTraceRun,
  type TraceRunIds,
  runParts,
  runTree,
  type Part,
  type TraceRun,
} from './traces-steps.ts';

type ReadRun = TraceRun & { attachments?: Record<string, { presigned_url?: string; mime_type?: string }> };

const capture = (name: string) => readFileSync(new URL(`../../fixtures/platform/multipart/${name}.multipart`, import.meta.url));

/** A captured body with every UUID replaced by a fresh one (same length, so each part's length= holds). */
function withFreshIds(body: Buffer, ids: TraceRunIds): { body: Buffer; contentType: string; idMap: Map<string, string> } {
  const text = body.toString('latin1');
  const idMap = new Map<string, string>();
  const fresh = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (old) => {
    if (!idMap.has(old)) idMap.set(old, ids.v7(parseInt(old.slice(0, 8) + old.slice(9, 13), 16)));
    return idMap.get(old)!;
  });
  return { body: Buffer.from(fresh, 'latin1'), contentType: `multipart/form-data; boundary=${text.split('\r\n')[0].slice(2)}`, idMap };
}

function postMultipart(platform: ApiClient, body: Buffer, contentType: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return platform.post('/runs/multipart', undefined, { rawBody: body, headers: { 'content-type': contentType, ...headers } });
}

/** The bytes at an attachment's URL (a data: URL or a download). */
async function download(platform: ApiClient, url: string | undefined): Promise<Buffer> {
  expect(typeof url, `an attachment names its URL: ${url}`).toBe('string');
  const res = await platform.follow(url!);
  expect(res.status, `${url!.slice(0, 80)} answers the attachment`).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Whether a read shows a patch applied: until then, an eventually consistent service may answer the run as posted. */
const showsPatch = (run: ReadRun) => (run.outputs ?? null) !== null || (run.end_time ?? null) !== null;

/** A time as epoch ms, to the millisecond (fraction digits beyond it dropped). */
const instant = (value: unknown) => (typeof value === 'number' ? value : Date.parse(String(value).replace(/(\.\d{3})\d+/, '$1')));

/** Each run read back once it shows what was written: with `ready`, an update applied too. */
async function readAll(platform: ApiClient, time: Time, runs: TraceRun[], ready?: (run: ReadRun) => boolean): Promise<ReadRun[]> {
  const read: ReadRun[] = [];
  for (const run of runs) {
    const res = await readTraceRun<ReadRun>(platform, time, run.id, { ready });
    read.push(res.json);
  }
  return read;
}

test('POST /runs/multipart ingests several runs in one request', { tag: '@TRACE-MULTIPART' }, async ({ traceRunIds, platform, conformanceRun, time }) => {
  const runs = runTree(traceRunIds, [null, 0, 0, 1], { start: baseTime(conformanceRun) });
  const { body, contentType } = multipartBody(runs.flatMap((r) => runParts('post', r)));
  expectStatus(await postMultipart(platform, body, contentType), '2xx');
  const read = await readAll(platform, time, runs);
  expect(
    read.map((r) => r.inputs),
    'every run, with its inputs part',
  ).toEqual(runs.map((r) => r.inputs));
});

test('runs ingested with multipart keep the trace_id and dotted_order the caller computed', { tag: '@TRACE-MULTIPART-CALLER-ORDER' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const runs = runTree(traceRunIds, [null, 0, 1, 1], { start: baseTime(conformanceRun) });
  const { body, contentType } = multipartBody(runs.flatMap((r) => runParts('post', r)));
  expectStatus(await postMultipart(platform, body, contentType), '2xx');
  const read = await readAll(platform, time, runs);
  expect(
    read.map((r) => [r.trace_id, r.dotted_order]),
    "exactly the caller's values",
  ).toEqual(runs.map((r) => [r.trace_id, r.dotted_order]));
});

test('the batch flow: create several runs in one multipart request, then patch them with outputs', { tag: '@TRACE-FLOW-BATCH' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const runs = runTree(traceRunIds, [null, 0, 0], { start });
  const created = multipartBody(runs.flatMap((r) => runParts('post', r)));
  expectStatus(await postMultipart(platform, created.body, created.contentType), '2xx');
  const patches = runs.map((r, i) => ({
    id: r.id,
    trace_id: r.trace_id,
    dotted_order: r.dotted_order,
    parent_run_id: r.parent_run_id,
    end_time: new Date(start + 5000 + i).toISOString(),
    outputs: { result: i },
  }));
  const patched = multipartBody(patches.flatMap((p) => runParts('patch', p)));
  expectStatus(await postMultipart(platform, patched.body, patched.contentType), '2xx');
  // Each step succeeded; what the flow left is read, where the target serves a read of a run.
  if (!servesRead(platform, 'readRun', 'the runs of the flow read back')) return;
  const read = await readAll(platform, time, runs, showsPatch);
  expect(
    read.map((r) => r.outputs),
    'every run has its outputs',
  ).toEqual(runs.map((_, i) => ({ result: i })));
  expect(
    read.map((r) => r.inputs),
    'and keeps its inputs',
  ).toEqual(runs.map((r) => r.inputs));
});

test('dotted_order segments with a fraction of up to six digits are accepted and kept', { tag: '@TRACE-DOTTED-ORDER-FRACTION' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  time,
}) => {
  for (const digits of [6, 3, 1, 0]) {
    const runs = runTree(ids, [null, 0], { start: baseTime(conformanceRun) + digits * 10_000, digits });
    const { body, contentType } = multipartBody(runs.flatMap((r) => runParts('post', r)));
    expectStatus(await postMultipart(platform, body, contentType), '2xx');
    const read = await readAll(platform, time, runs);
    expect(
      read.map((r) => r.dotted_order),
      `${digits} fraction digits`,
    ).toEqual(runs.map((r) => r.dotted_order));
  }
});

test.describe("the official client's part layout is accepted and applied in order", { tag: '@TRACE-MULTIPART-LAYOUT' }, () => {
  test('posts with merged outputs, a text attachment and a feedback', async ({ traceRunIds, platform, time }) => {
    const { body, contentType, idMap } = withFreshIds(capture('merged-post-attachment-feedback'), traceRunIds);
    expectStatus(await postMultipart(platform, body, contentType), '2xx');
    const [parent, child, feedback] = [
      '01a201a1-c30a-7000-8000-00a41d5d2e97',
      '01a201a1-c30c-7000-8000-01e94325254c',
      '01a201a1-c323-71ae-a234-35ff7c006a06',
    ].map((id) => idMap.get(id));
    const p = await readTraceRun<ReadRun>(platform, time, parent!);
    expect(p.json.outputs, p.describe('the merged outputs')).toEqual({ answer: 'z' });
    expect(p.json.inputs, p.describe('the inputs part')).toEqual({ q: 'batched' });
    const c = await readTraceRun<ReadRun>(platform, time, child!);
    const attachment = c.json.attachments?.notes_txt;
    expect(attachment?.mime_type, c.describe('the attachment notes_txt is kept with its type')).toBe('text/plain');
    expect((await download(platform, attachment?.presigned_url)).toString('utf8'), c.describe('with its bytes')).toBe('hello attachment');
    const f = await readFeedback<{ key?: string; run_id?: string; score?: number }>(platform, time, feedback!);
    expect([f.json.key, f.json.run_id, f.json.score], f.describe('the feedback part')).toEqual(['correctness', parent, 0.5]);
  });

  test('posts, then patches in a second request', async ({ traceRunIds: ids, platform, time }) => {
    const first = withFreshIds(capture('post-then-patch.1'), ids);
    expectStatus(await postMultipart(platform, first.body, first.contentType), '2xx');
    // The second request names the same runs: it takes the same replacement ids.
    const text = capture('post-then-patch.2')
      .toString('latin1')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (old) => first.idMap.get(old) ?? old);
    const second = Buffer.from(text, 'latin1');
    expectStatus(await postMultipart(platform, second, `multipart/form-data; boundary=${text.split('\r\n')[0].slice(2)}`), '2xx');
    const [parent, child] = ['01a201a1-c8c8-7000-8000-00ed570352be', '01a201a1-c8cc-7000-8000-0024b7a2766d'].map((id) => first.idMap.get(id)!);
    const c = await readTraceRun<ReadRun>(platform, time, child, { ready: showsPatch });
    expect([c.json.inputs, c.json.outputs], c.describe('the child: inputs from the post, outputs from the patch')).toEqual([
      { prompt: 'x' },
      { generations: [{ text: 'y' }] },
    ]);
    expect(
      (c.json.events as { name?: string }[] | undefined)?.map((e) => e.name),
      c.describe("and the events part's new_token event"),
    ).toEqual(['new_token']);
    const p = await readTraceRun<ReadRun & { error?: unknown }>(platform, time, parent, { ready: showsPatch });
    expect([p.json.inputs, p.json.error], p.describe('the parent: inputs from the post, the error part (a JSON string) from the patch')).toEqual([
      { q: 'split' },
      'boom: something failed',
    ]);
    // The patch part's end_time, 1795323709966 in epoch ms.
    expect(instant(p.json.end_time), p.describe("and the patch's end time, 2026-11-22T05:01:49.966Z")).toBe(1795323709966);
  });

  test('posts and patches of the same runs in one request, post first', async ({ traceRunIds, platform, time }) => {
    const { body, contentType, idMap } = withFreshIds(capture('post-and-patch-in-one'), traceRunIds);
    expectStatus(await postMultipart(platform, body, contentType), '2xx');
    const expected: [string, unknown, unknown][] = [
      ['01a201a1-d5f2-7000-8000-030fcf95f71d', { q: 'batched' }, { answer: 'z' }],
      ['01a201a1-d5f4-7000-8000-01cfd3dcbf56', { prompt: 'x' }, { generations: [{ text: 'y' }] }],
    ];
    for (const [captured, inputs, outputs] of expected) {
      const res = await readTraceRun<ReadRun>(platform, time, idMap.get(captured)!, { ready: showsPatch });
      expect([res.json.inputs, res.json.outputs], res.describe('the post gave the inputs, the patch the outputs')).toEqual([inputs, outputs]);
    }
  });

  test('nested traceable runs with a thread_id', async ({ traceRunIds, platform, time }) => {
    const { body, contentType, idMap } = withFreshIds(capture('traceable-nested'), traceRunIds);
    expectStatus(await postMultipart(platform, body, contentType), '2xx');
    const ids = [...idMap.values()];
    const root = await readTraceRun<ReadRun>(platform, time, ids[0]);
    for (const id of ids.slice(1, 3)) {
      const child = await readTraceRun<ReadRun>(platform, time, id);
      expect(child.json.parent_run_id, child.describe('each inner call is a child of the outer one')).toBe(ids[0]);
      expect(child.json.dotted_order.startsWith(`${root.json.dotted_order}.`), child.describe('under its dotted order')).toBe(true);
    }
  });

  test('parts sized by a Content-Length header instead of length=', async ({ traceRunIds, platform, conformanceRun, time }) => {
    const runs = runTree(traceRunIds, [null, 0], { start: baseTime(conformanceRun) });
    const boundary = 'apc-content-length-boundary';
    const chunks = runs
      .flatMap((r) => runParts('post', r))
      .map((part) => {
        const data = Buffer.from(String(part.data), 'utf8');
        return Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\nContent-Type: application/json\r\nContent-Length: ${data.length}\r\n\r\n`,
          ),
          data,
          Buffer.from('\r\n'),
        ]);
      });
    const body = Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
    expectStatus(await postMultipart(platform, body, `multipart/form-data; boundary=${boundary}`), '2xx');
    expect((await readAll(platform, time, runs)).map((r) => r.inputs)).toEqual(runs.map((r) => r.inputs));
  });
});

test.describe('a multipart body sent chunked or compressed whole is accepted', { tag: '@TRACE-MULTIPART-ENCODING' }, () => {
  test('chunked, without Content-Length', async ({ traceRunIds, platform, conformanceRun, time }) => {
    const runs = runTree(traceRunIds, [null, 0], { start: baseTime(conformanceRun) });
    const { body, contentType } = multipartBody(runs.flatMap((r) => runParts('post', r)));
    const half = Math.floor(body.length / 2);
    // A stream of unknown length goes out with Transfer-Encoding: chunked, as the client sends it.
    const res = await platform.post('/runs/multipart', undefined, {
      rawBody: () => Readable.from([body.subarray(0, half), body.subarray(half)]),
      headers: { 'content-type': contentType },
    });
    expect(res.status >= 200 && res.status < 300, res.describe('chunked multipart')).toBe(true);
    expect((await readAll(platform, time, runs)).map((r) => r.inputs)).toEqual(runs.map((r) => r.inputs));
  });

  for (const encoding of ['gzip', 'zstd'] as const) {
    test(`compressed whole with Content-Encoding: ${encoding}`, async ({ traceRunIds, platform, conformanceRun, time }) => {
      const compress = encoding === 'gzip' ? zlib.gzipSync : (zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer }).zstdCompressSync;
      skipForMachine(!compress, `this Node.js (${process.version}) cannot compress ${encoding}`);
      const info = await platform.get<{ instance_flags?: Record<string, unknown> }>('/info');
      skipDeclared(encoding === 'zstd' && info.json?.instance_flags?.zstd_compression_enabled !== true, 'the target does not advertise zstd in /info');
      const runs = runTree(traceRunIds, [null, 0], { start: baseTime(conformanceRun) });
      const { body, contentType } = multipartBody(runs.flatMap((r) => runParts('post', r)));
      expectStatus(await postMultipart(platform, compress!(body), contentType, { 'content-encoding': encoding }), '2xx');
      expect((await readAll(platform, time, runs)).map((r) => r.inputs)).toEqual(runs.map((r) => r.inputs));
    });
  }
});

test.describe('a batch run whose lineage is missing or contradicts itself is refused, and nothing of the request is ingested', {
  tag: '@TRACE-MULTIPART-CONSISTENT',
}, () => {
  const cases: [string, (runs: TraceRun[], ids: TraceRunIds) => TraceRun[]][] = [
    ['no dotted_order', ([root, child]) => [root, { ...child, dotted_order: undefined as unknown as string }]],
    ['no trace_id', ([root, child]) => [root, { ...child, trace_id: undefined as unknown as string }]],
    ['a last segment that is not the run id', ([root, child], ids) => [root, { ...child, dotted_order: child.dotted_order.replace(child.id, ids.v4()) }]],
    ['a trace_id that is not the root segment', ([root, child], ids) => [root, { ...child, trace_id: ids.v4() }]],
    ['a parent_run_id that is not the segment before', ([root, child], ids) => [root, { ...child, parent_run_id: ids.v4() }]],
    ["a child without its parent's segment", ([root, child]) => [root, { ...child, dotted_order: child.dotted_order.split('.').pop()! }]],
    [
      'a segment that is not timestamp then id',
      ([root, child]) => [root, { ...child, dotted_order: `${root.dotted_order}.${child.id}${child.dotted_order.split('.').pop()!.slice(0, 22)}` }],
    ],
  ];
  for (const [name, broken] of cases) {
    test(name, async ({ traceRunIds: ids, platform, conformanceRun, time }) => {
      const runs = broken(runTree(ids, [null, 0], { start: baseTime(conformanceRun) }), ids);
      const { body, contentType } = multipartBody(runs.flatMap((r) => runParts('post', JSON.parse(JSON.stringify(r)))));
      // The rule asks for a refusal (a 4xx); the error body is ERROR-SHAPE-PLATFORM's.
      expectRefused(await postMultipart(platform, body, contentType));
      for (const r of runs) await expectNoRun(platform, time, r.id, `${r.name} of the refused request`);
    });
  }
});

test.describe('a malformed ingestion body is refused with a JSON error and ingests nothing', { tag: '@TRACE-BAD-INPUT' }, () => {
  const truncated = (body: Buffer) => body.subarray(0, body.length - 40);
  type Broken = { body: Buffer; contentType: string; headers?: Record<string, string> };
  const cases: [string, (parts: Part[]) => Broken][] = [
    ['a truncated multipart body', (parts) => ({ ...multipartBody(parts), body: truncated(multipartBody(parts).body) })],
    ['a run part that is not JSON', (parts) => multipartBody([{ ...parts[0], data: '{"id": ' }, ...parts.slice(1)])],
    ['an unknown part name', (parts) => multipartBody([...parts, { name: 'bogus.part', contentType: 'application/json', data: '{}' }])],
    [
      'a field part without its run part',
      (parts) => multipartBody([...parts, { name: 'post.0190c8a2-0000-7000-8000-000000000000.inputs', contentType: 'application/json', data: '{}' }]),
    ],
    ['a body that is not multipart', () => ({ body: Buffer.from('{"post": []}'), contentType: 'multipart/form-data; boundary=apc-missing' })],
    ['a gzip header on a body that is not gzip', (parts) => ({ ...multipartBody(parts), headers: { 'content-encoding': 'gzip' } })],
  ];
  for (const [name, build] of cases) {
    test(name, async ({ traceRunIds, platform, conformanceRun, time }) => {
      const runs = runTree(traceRunIds, [null, 0], { start: baseTime(conformanceRun) });
      const { body, contentType, headers } = build(runs.flatMap((r) => runParts('post', r)));
      expectJsonError(await postMultipart(platform, body, contentType, headers));
      for (const r of runs) await expectNoRun(platform, time, r.id, `${r.name} of the refused request`);
    });
  }

  test('JSON bodies: malformed, a batch run without an id, or a time that is no time', async ({ traceRunIds: ids, platform, conformanceRun, time }) => {
    const id = ids.v7(baseTime(conformanceRun));
    const json = { 'content-type': 'application/json' };
    expectJsonError(await platform.post('/runs', undefined, { rawBody: `{"id": "${id}", "name": `, headers: json }));
    expectJsonError(await platform.post('/runs', { id, name: 'bad time', run_type: 'chain', start_time: 'yesterday' }));
    expectJsonError(await platform.post('/runs/batch', { post: [{ name: 'no id' }] }));
    expectJsonError(await platform.post('/runs/batch', { post: 'runs' }));
    await expectNoRun(platform, time, id, 'the run of the refused bodies');
  });
});

test('an attachment keeps its bytes exactly', { tag: '@TRACE-MULTIPART-LAYOUT' }, async ({ traceRunIds, platform, conformanceRun, time }) => {
  const runs = runTree(traceRunIds, [null], { start: baseTime(conformanceRun) });
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const { body, contentType } = multipartBody([
    ...runParts('post', runs[0]),
    { name: `attachment.${runs[0].id}.image_png`, contentType: 'image/png', data: bytes },
  ]);
  expectStatus(await postMultipart(platform, body, contentType), '2xx');
  const read = await readTraceRun<ReadRun & { attachments?: Record<string, { presigned_url?: string; sha256?: string }> }>(platform, time, runs[0].id);
  const attachment = read.json.attachments?.image_png;
  expect(attachment, read.describe('the attachment is listed')).toBeTruthy();
  const fetched = await download(platform, attachment!.presigned_url);
  expect(createHash('sha256').update(fetched).digest('hex'), read.describe('every byte, 0 to 255, comes back')).toBe(
    createHash('sha256').update(bytes).digest('hex'),
  );
});
