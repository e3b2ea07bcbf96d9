// §2.5, §4.3: basic tracing with POST /runs and PATCH /runs (updateTraceRun: the run id in the path,
// as the service takes it, or in the body); the service computes trace_id and dotted_order.
import { expectJsonError, expectRefused, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expect, test } from './fixtures.ts';
import {
  baseTime,
  isoWith,
  readTraceRun,
  readWritten,
  requireShownAbsence,
  TraceRunIds,
  runTree,
  SEGMENT,
  servesRead,
  servesRunReads,
  type TraceRun,
  untilWritten,
  updateTraceRun,
} from './traces-steps.ts';

type ReadRun = TraceRun & {
  outputs?: Record<string, unknown>;
  end_time?: string | null;
  thread_id?: string | null;
  extra?: { metadata?: Record<string, unknown> };
};

/** Whether a read shows the update that ended the run: until then, an eventually consistent service may answer the run as created. */
const ended = (run: ReadRun) => run.end_time !== null && run.end_time !== undefined;

const sameInstant = (a: unknown, b: string) =>
  typeof a === 'string' && Date.parse(a.replace(/(\.\d{3})\d+/, '$1')) === Date.parse(b.replace(/(\.\d{3})\d+/, '$1'));

test('POST /runs creates a run that can be read back', { tag: '@TRACE-CREATE' }, async ({ traceRunIds, platform, conformanceRun, time }) => {
  const id = traceRunIds.v7(baseTime(conformanceRun));
  const res = await platform.post('/runs', { id, name: 'created', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun)), inputs: { q: 'hello' } });
  expectStatus(res, '2xx');
  const read = await readTraceRun<ReadRun>(platform, time, id);
  expect(read.json.id, read.describe('the run')).toBe(id);
  expect(read.json.inputs, read.describe('its inputs')).toEqual({ q: 'hello' });
});

test('the service generates trace_id and dotted_order for runs posted without them', { tag: '@TRACE-CREATE-GENERATES-ORDER' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const parent = ids.v7(start);
  const child = ids.v7(start + 2000);
  // The posts without trace_id and dotted_order are the requests the rule is about.
  expectStatus(await platform.post('/runs', { id: parent, name: 'parent', run_type: 'chain', start_time: isoWith(start, 3) }), '2xx');
  expectStatus(await platform.post('/runs', { id: child, name: 'child', run_type: 'llm', parent_run_id: parent, start_time: isoWith(start + 2000, 3) }), '2xx');
  const [p, c] = [await readTraceRun<ReadRun>(platform, time, parent), await readTraceRun<ReadRun>(platform, time, child)];
  expect(p.json.trace_id, p.describe('the root is its own trace')).toBe(parent);
  expect(c.json.trace_id, c.describe("the child is in its root's trace")).toBe(parent);
  expect(SEGMENT.test(p.json.dotted_order), p.describe('the root has one segment')).toBe(true);
  expect(c.json.dotted_order.startsWith(`${p.json.dotted_order}.`), c.describe("the child's order extends its parent's")).toBe(true);
  expect(c.json.dotted_order.split('.').pop()!.endsWith(child), c.describe('the last segment carries the child id')).toBe(true);
});

test('POST /runs accepts a run without an id, and the service gives it one', { tag: '@TRACE-CREATE-GENERATES-ID' }, async ({ platform, testKey, time }) => {
  // The run's own project: its one run is found there, by a read that needs no id.
  const name = `apc-no-id-${testKey}`;
  const res = await platform.post('/runs', { name, run_type: 'chain', session_name: name, inputs: { q: 1 } });
  expectStatus(res, '2xx');
  const projects = await untilWritten(
    time,
    () => platform.get<{ id: string }[]>(`/sessions?name=${encodeURIComponent(name)}`),
    (list) => Array.isArray(list) && list.length > 0,
  );
  precondition(projects, "find the run's project");
  if (!Array.isArray(projects.json) || projects.json.length === 0)
    skipForPrecondition(`precondition failed: the run's project ${name} is listed: ${projects.describe()}`, ['UPLOAD-READ-EXPERIMENTS']);
  const found = await untilWritten(
    time,
    () => platform.post<{ runs: TraceRun[] }>('/runs/query', { session: [projects.json[0].id] }),
    (page) => Array.isArray(page.runs) && page.runs.length > 0,
  );
  precondition(found, "query the project's runs");
  expect(
    found.json.runs.map((r) => [r.name, typeof r.id]),
    found.describe('the run, with the id the service gave it'),
  ).toEqual([[name, 'string']]);
});

test('PATCH /runs updates a run with its outputs and end time', { tag: '@TRACE-UPDATE' }, async ({ traceRunIds, platform, testKey, conformanceRun, time }) => {
  const start = baseTime(conformanceRun);
  const id = traceRunIds.v7(start);
  precondition(await platform.post('/runs', { id, name: 'to-update', run_type: 'chain', start_time: isoWith(start, 3), inputs: { q: 1 } }), 'post the run');
  const end = isoWith(start + 1500, 3);
  const res = await updateTraceRun(platform, id, { outputs: { answer: 42 }, end_time: end });
  expectStatus(res, '2xx');
  const read = await readTraceRun<ReadRun>(platform, time, id, { ready: ended });
  expect(read.json.outputs, read.describe('the outputs')).toEqual({ answer: 42 });
  expect(sameInstant(read.json.end_time, end), read.describe(`the end time ${end}`)).toBe(true);
  expect(read.json.inputs, read.describe('the inputs are kept')).toEqual({ q: 1 });
  // Any field of the run is updated, not only outputs and end_time: a failed run gets its error.
  const failed = new TraceRunIds(`${testKey}-failed`, conformanceRun).v7(start);
  precondition(await platform.post('/runs', { id: failed, name: 'to-fail', run_type: 'chain', start_time: isoWith(start, 3) }), 'post a second run');
  expectStatus(await updateTraceRun(platform, failed, { error: 'ValueError: boom', end_time: end }), '2xx');
  const errored = await readTraceRun<ReadRun & { error?: unknown }>(platform, time, failed, { ready: ended });
  expect(errored.json.error, errored.describe('the error')).toBe('ValueError: boom');
});

test('the basic flow: post a parent chain run, post a child model run, then patch both', { tag: '@TRACE-FLOW-BASIC' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const parent = ids.v7(start);
  const child = ids.v7(start + 10);
  const thread = { metadata: { thread_id: `thread-${testKey}` } };
  expectStatus(
    await platform.post('/runs', {
      id: parent,
      name: 'Chat Pipeline',
      run_type: 'chain',
      inputs: { question: 'hi' },
      start_time: isoWith(start, 3),
      extra: thread,
      session_name: 'apc-basic',
    }),
    '2xx',
  );
  expectStatus(
    await platform.post('/runs', {
      id: child,
      name: 'OpenAI Call',
      run_type: 'llm',
      inputs: { messages: [{ role: 'user', content: 'hi' }] },
      parent_run_id: parent,
      start_time: isoWith(start + 10, 3),
      extra: thread,
      session_name: 'apc-basic',
    }),
    '2xx',
  );
  expectStatus(await updateTraceRun(platform, child, { outputs: { generations: [{ text: 'hello' }] }, end_time: isoWith(start + 500, 3) }), '2xx');
  expectStatus(await updateTraceRun(platform, parent, { outputs: { answer: 'hello' }, end_time: isoWith(start + 600, 3) }), '2xx');
  // Each step succeeded; what the flow left is read, where the target serves a read of a run.
  if (!servesRead(platform, 'readRun', 'the runs of the flow read back')) return;
  const [p, c] = [await readTraceRun<ReadRun>(platform, time, parent, { ready: ended }), await readTraceRun<ReadRun>(platform, time, child, { ready: ended })];
  expect(p.json.outputs, p.describe('the parent has its outputs')).toEqual({ answer: 'hello' });
  expect(c.json.outputs, c.describe('the child has its outputs')).toEqual({ generations: [{ text: 'hello' }] });
  expect(c.json.parent_run_id, c.describe('the child names its parent')).toBe(parent);
  expect(c.json.trace_id, c.describe("the child is in the parent's trace")).toBe(parent);
});

test('GET /runs/{id} answers an ingested run with its id, trace_id and dotted_order', { tag: '@TRACE-READ-RUN' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const id = traceRunIds.v7(baseTime(conformanceRun));
  precondition(await platform.post('/runs', { id, name: 'read-me', run_type: 'tool', start_time: isoWith(baseTime(conformanceRun), 3) }), 'post the run');
  // Once the run is persisted: read as a user would, until it is there. The read is the request this rule judges.
  const read = await readWritten<ReadRun>(platform, time, `/runs/${id}`);
  expectStatus(read, 200);
  expect(read.json.id, read.describe('id')).toBe(id);
  expect(read.json.trace_id, read.describe('trace_id')).toBe(id);
  expect(typeof read.json.dotted_order === 'string' && read.json.dotted_order.endsWith(id), read.describe('dotted_order')).toBe(true);
  // A UUID is case-insensitive on input (RFC 9562): the id in uppercase reads the same run.
  const upper = await platform.get<ReadRun>(`/runs/${id.toUpperCase()}`);
  expectStatus(upper, 200);
  expect(String(upper.json.id).toLowerCase(), upper.describe('the same run, read by its id in uppercase')).toBe(id);
});

test('GET /runs/{id} of an unknown run answers 404 with a JSON error body', { tag: '@TRACE-READ-UNKNOWN-404' }, async ({ traceRunIds, platform, time }) => {
  const id = traceRunIds.v4();
  const res = await platform.get(`/runs/${id}`);
  // A 404 says the run is unknown only where the read answers a run that exists.
  await requireShownAbsence(res, 'an unknown run', () => servesRunReads(platform, time, id));
  expectJsonError(res, 404);
});

test('run ids are UUIDs: v7 and other versions are accepted, a non-UUID is refused', { tag: '@TRACE-RUN-ID-UUID' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  // A refusal is all the rule states: its status and body are not shown (§7).
  expectRefused(await platform.post('/runs', { id: 'run-1', name: 'not-a-uuid', run_type: 'chain', start_time: isoWith(start, 3) }));
  for (const id of [ids.v7(start), ids.v4()]) {
    expectStatus(await platform.post('/runs', { id, name: `uuid-${id[14]}`, run_type: 'chain', start_time: isoWith(start, 3) }), '2xx');
    // Accepted, and kept: the run reads back, where the target serves a read.
    if (servesRead(platform, 'readRun', `run ${id} reads back`)) await readTraceRun(platform, time, id);
  }
});

test('start and end times are accepted as epoch milliseconds and ISO strings with 0 to 6 fraction digits', { tag: '@TRACE-TIME-FORMATS' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun) + 123;
  // The end is not the start: a target that reads one time for both must not pass.
  const end = start + 2_000;
  const forms: [string, (ms: number) => unknown, (ms: number) => string][] = [
    ['epoch ms', (ms) => ms, (ms) => isoWith(ms, 3)],
    ['no fraction', (ms) => isoWith(ms, 0), (ms) => isoWith(ms, 0)],
    ['3 digits', (ms) => isoWith(ms, 3), (ms) => isoWith(ms, 3)],
    ['6 digits', (ms) => isoWith(ms, 6, 456), (ms) => isoWith(ms, 6, 456)],
  ];
  for (const [what, sent, expected] of forms) {
    const id = ids.v7(start);
    expectStatus(await platform.post('/runs', { id, name: what, run_type: 'chain', start_time: sent(start) }), '2xx');
    expectStatus(await updateTraceRun(platform, id, { end_time: sent(end), outputs: {} }), '2xx');
    const read = await readTraceRun<ReadRun>(platform, time, id, { ready: ended });
    expect(sameInstant(read.json.start_time, expected(start)), read.describe(`${what}: start_time is ${expected(start)}`)).toBe(true);
    expect(sameInstant(read.json.end_time, expected(end)), read.describe(`${what}: end_time is ${expected(end)}`)).toBe(true);
  }
});

test('creating a run whose id exists answers 409 and keeps the stored run', { tag: '@TRACE-DUPLICATE-409' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const id = traceRunIds.v7(baseTime(conformanceRun));
  precondition(
    await platform.post('/runs', { id, name: 'first', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3), inputs: { n: 1 } }),
    'post the run',
  );
  // The rule names the status, not the body.
  expectRefused(
    await platform.post('/runs', { id, name: 'second', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3), inputs: { n: 2 } }),
    409,
  );
  const read = await readTraceRun<ReadRun>(platform, time, id);
  expect([read.json.name, read.json.inputs], read.describe('the first run stays')).toEqual(['first', { n: 1 }]);
});

test('ingestion answers 202 with a small JSON object', { tag: '@TRACE-ACCEPTED-202' }, async ({ traceRunIds: ids, platform, conformanceRun }) => {
  const start = baseTime(conformanceRun);
  const id = ids.v7(start);
  const answers = [
    await platform.post('/runs', { id, name: 'accepted', run_type: 'chain', start_time: isoWith(start, 3) }),
    await platform.patch(`/runs/${id}`, { outputs: {} }),
    await platform.post('/runs/batch', { post: runTree(ids, [null], { start }) }),
  ];
  for (const res of answers) {
    expectStatus(res, 202);
    expect(typeof res.json === 'object' && res.json !== null && !Array.isArray(res.json), res.describe('a JSON object')).toBe(true);
  }
});

test('thread_id set on every run of a conversation is kept on parents and children', { tag: '@TRACE-THREAD-ID' }, async ({
  traceRunIds: ids,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const [parent, child] = [ids.v7(start), ids.v7(start + 5)];
  const thread = `thread-${testKey}`;
  // The requests carrying thread_id are the ones the rule is about: each must be accepted.
  expectStatus(
    await platform.post('/runs', { id: parent, name: 'turn', run_type: 'chain', start_time: isoWith(start, 3), extra: { metadata: { thread_id: thread } } }),
    '2xx',
  );
  expectStatus(
    await platform.post('/runs', {
      id: child,
      name: 'model',
      run_type: 'llm',
      parent_run_id: parent,
      start_time: isoWith(start + 5, 3),
      extra: { metadata: { thread_id: thread } },
    }),
    '2xx',
  );
  expectStatus(await updateTraceRun(platform, child, { outputs: { text: 'ok' }, extra: { metadata: { other: true } } }), '2xx');
  for (const id of [parent, child]) {
    const read = await readTraceRun<ReadRun>(platform, time, id, { ready: (r) => id === parent || (r.outputs ?? null) !== null });
    const kept = read.json.thread_id ?? read.json.extra?.metadata?.thread_id;
    expect(kept, read.describe('thread_id is kept')).toBe(thread);
  }
});

test('the fields a read run carries beyond id, trace_id, dotted_order and thread_id', { tag: ['@TRACE-OTHER-FIELDS', '@TRACE-BODIES'] }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
  observe,
}) => {
  const id = traceRunIds.v7(baseTime(conformanceRun));
  const created = await platform.post('/runs', { id, name: 'observed', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun), 3), inputs: {} });
  const patched = await updateTraceRun(platform, id, { outputs: {}, end_time: isoWith(baseTime(conformanceRun) + 1, 3) });
  // Whatever the read answers is observed: a target that serves no such read shows none.
  const read = await readWritten<ReadRun>(platform, time, `/runs/${id}`, { ready: ended });
  observe('TRACE-BODIES', `POST /runs → ${created.status} ${created.text.slice(0, 80)}; PATCH → ${patched.status} ${patched.text.slice(0, 80)}`);
  observe(
    'TRACE-OTHER-FIELDS',
    `a read run carries ${Object.keys(read.json ?? {})
      .sort()
      .join(', ')}`,
  );
});

test('a run id must be a UUID in the path of PATCH and GET too', { tag: '@TRACE-RUN-ID-UUID' }, async ({ platform }) => {
  expectRefused(await platform.patch('/runs/not-a-uuid', { outputs: {} }));
  if (servesRead(platform, 'readRun', 'GET /runs/not-a-uuid is refused')) expectRefused(await platform.get('/runs/not-a-uuid'));
});
