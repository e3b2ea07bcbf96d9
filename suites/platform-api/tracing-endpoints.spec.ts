// §4.3, §8: the ingestion and query endpoints the spec names only in the rate-limit table,
// as the official client uses them (langsmith JS client, langsmith-sdk js/src/client.ts).
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { clientWithKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import { baseTime, isoWith, readFeedback, readTraceRun, type TraceRunIds, runTree, servesRead, untilWritten, type TraceRun } from './traces-steps.ts';

type Page = { runs: TraceRun[]; cursors: { next: string | null } };

test('POST /runs/batch with {post, patch} ingests the creates, then the updates', { tag: '@TRACE-BATCH' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const runs = runTree(traceRunIds, [null, 0], { start });
  const patch = runs.map((r, i) => ({
    id: r.id,
    trace_id: r.trace_id,
    dotted_order: r.dotted_order,
    parent_run_id: r.parent_run_id,
    outputs: { n: i },
    end_time: isoWith(start + 9000),
  }));
  expectStatus(await platform.post('/runs/batch', { post: runs, patch }), '2xx');
  for (const [i, r] of runs.entries()) {
    const read = await readTraceRun(platform, time, r.id, { ready: (got) => (got.outputs ?? null) !== null });
    expect([read.json.inputs, read.json.outputs, read.json.dotted_order], read.describe('created, then updated')).toEqual([r.inputs, { n: i }, r.dotted_order]);
    const ended = (read.json as { end_time?: unknown }).end_time;
    expect(typeof ended === 'string' && Date.parse(ended.replace(/(\.\d{3})\d+/, '$1')) === start + 9000, read.describe("the patch's end_time")).toBe(true);
  }
});

test('POST /runs/query answers {runs, cursors: {next}} and pages until next is null', { tag: '@TRACE-QUERY' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  time,
}) => {
  const runs = runTree(ids, [null, 0, 0, 1, 1], { start: baseTime(conformanceRun) });
  // Another trace beside it, which a query by trace must leave out.
  const other = runTree(ids, [null, 0], { start: baseTime(conformanceRun) + 60_000 });
  precondition(await platform.post('/runs/batch', { post: [...runs, ...other] }), 'ingest two traces');
  // The trace is paged once it is all persisted: until then an eventually consistent service may answer part of it.
  await untilWritten(
    time,
    () => platform.post<Page>('/runs/query', { trace: runs[0].id, limit: 100 }),
    (page) => Array.isArray(page.runs) && page.runs.length === runs.length,
  );
  const found: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const res: ApiResponse<Page> = await platform.post<Page>('/runs/query', { trace: runs[0].id, limit: 2, ...(cursor ? { cursor } : {}) });
    expectStatus(res, 200);
    expect(res.json.runs.length <= 2, res.describe('at most limit runs')).toBe(true);
    found.push(...res.json.runs.map((r) => r.id));
    cursor = res.json.cursors.next;
    if (cursor === null) break;
  }
  expect(cursor, 'the last page has next null').toBeNull();
  expect(found.sort(), "every run of the trace, once, and none of the other trace's").toEqual(runs.map((r) => r.id).sort());
  const roots = await platform.post<{ runs: TraceRun[] }>('/runs/query', { trace: runs[0].id, is_root: true });
  expectStatus(roots, 200);
  expect(
    roots.json.runs.map((r) => r.id),
    roots.describe('is_root: true answers the root only'),
  ).toEqual([runs[0].id]);
});

/** A trace of three runs ingested in one batch, once the query of its whole trace answers all of them. */
async function persistedTrace(platform: ApiClient, time: Time, ids: TraceRunIds, start: number) {
  const runs = runTree(ids, [null, 0, 0], { start });
  precondition(await platform.post('/runs/batch', { post: runs }), 'ingest a trace');
  precondition(
    await untilWritten(
      time,
      () => platform.post<Page>('/runs/query', { trace: runs[0].id }),
      (page) => Array.isArray(page.runs) && page.runs.length === runs.length,
    ),
    'query the whole trace',
  );
  return runs;
}

test('POST /runs/query with a filter expression answers the runs it selects and no other', { tag: '@TRACE-QUERY-FILTER' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  // Once the trace is persisted, read without a filter: the evidence that the filter, not a lag, leaves runs out.
  const runs = await persistedTrace(platform, time, traceRunIds, baseTime(conformanceRun));
  const [, wanted] = runs;
  const res = await platform.post<Page>('/runs/query', { trace: runs[0].id, filter: `eq(name, ${JSON.stringify(wanted.name)})` });
  expectStatus(res, 200);
  expect(
    res.json.runs.map((r) => r.id),
    res.describe(`eq(name, "${wanted.name}") selects that run alone`),
  ).toEqual([wanted.id]);
});

test('POST /runs/stats answers the statistics of the runs its query selects', { tag: '@TRACE-STATS' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const runs = await persistedTrace(platform, time, traceRunIds, baseTime(conformanceRun));
  // §8 allows one stats request per key in 10 s (US): another request may have spent it; its Retry-After is waited once.
  const stats = async (send: () => Promise<ApiResponse<{ run_count?: unknown }>>) => {
    let res = await send();
    if (res.status === 429) {
      await time.pass(Math.max(1, Number(res.headers['retry-after']) || 10) * 1000);
      res = await send();
    }
    expectStatus(res, 200);
    expect(res.json.run_count, res.describe('run_count: the runs of the trace')).toBe(runs.length);
  };
  await stats(() => platform.post('/runs/stats', { trace: runs[0].id }));
  // The same statistics by GET, the query in the query string, where the target serves that form.
  if (servesRead(platform, 'readRunStats', 'GET /runs/stats')) await stats(() => platform.get(`/runs/stats?trace=${runs[0].id}`));
});

test('GET /api/v2/runs/{id} and POST /api/v2/runs/query answer the runs with the fields selected', { tag: '@TRACE-RUNS-V2' }, async ({
  traceRunIds,
  platform,
  testKey,
  conformanceRun,
  time,
}) => {
  const start = baseTime(conformanceRun);
  const project = `apc-v2-${testKey}`;
  const [run] = runTree(traceRunIds, [null], { start });
  precondition(await platform.post('/runs', { ...run, session_name: project }), 'trace a run into its own project');
  await readTraceRun(platform, time, run.id);
  const projects = await untilWritten(
    time,
    () => platform.get<{ id: string }[]>(`/sessions?name=${encodeURIComponent(project)}`),
    (list) => Array.isArray(list) && list.length > 0,
  );
  precondition(projects, "find the run's project");
  if (!Array.isArray(projects.json) || projects.json.length === 0)
    skipForPrecondition(`precondition failed: the project ${project} is listed: ${projects.describe()}`, ['UPLOAD-READ-EXPERIMENTS']);
  const projectId = projects.json[0].id;
  const one = await platform.get<{ id?: unknown; name?: unknown }>(`/api/v2/runs/${run.id}?project_id=${projectId}&selects=NAME`);
  expectStatus(one, 200);
  expect([one.json.id, one.json.name], one.describe('the run, its name selected')).toEqual([run.id, run.name]);
  const window = { min_start_time: new Date(start - 3_600_000).toISOString(), max_start_time: new Date(start + 3_600_000).toISOString() };
  const page = await platform.post<{ items?: { id?: unknown }[] }>('/api/v2/runs/query', { project_ids: [projectId], selects: ['NAME'], ...window });
  expectStatus(page, 200);
  expect(
    (page.json.items ?? []).map((r) => r.id),
    page.describe("the project's one run"),
  ).toEqual([run.id]);
});

test('POST /feedback accepts a feedback with a run_id and a key', { tag: '@TRACE-FEEDBACK' }, async ({ traceRunIds: ids, platform, conformanceRun, time }) => {
  const [root] = runTree(ids, [null], { start: baseTime(conformanceRun) });
  precondition(await platform.post('/runs/batch', { post: [root] }), 'ingest a run');
  const id = ids.v4();
  const res = await platform.post('/feedback', {
    id,
    run_id: root.id,
    trace_id: root.id,
    key: 'helpfulness',
    score: 0.75,
    comment: 'good',
    feedback_source: { type: 'api' },
  });
  expectStatus(res, '2xx');
  const read = await readFeedback<{ run_id: string; key: string; score: number }>(platform, time, id);
  expect([read.json.run_id, read.json.key, read.json.score], read.describe('the feedback is kept')).toEqual([root.id, 'helpfulness', 0.75]);
});

test('GET /info answers version, batch_ingest_config and instance_flags without credentials', { tag: '@TRACE-INFO' }, async ({ conformanceRun }, testInfo) => {
  const anonymous = clientWithKey(conformanceRun, 'platform-api', testInfo, undefined);
  skipDeclared(!anonymous, 'the target names no platform-api URL');
  for (const path of ['/info', '/api/v1/info']) {
    const res = await anonymous!.get<{ version?: unknown; batch_ingest_config?: unknown; instance_flags?: unknown }>(path);
    expectStatus(res, 200);
    expect(typeof res.json.version, res.describe('version')).toBe('string');
    expect(typeof res.json.batch_ingest_config, res.describe('batch_ingest_config')).toBe('object');
    expect(typeof res.json.instance_flags, res.describe('instance_flags')).toBe('object');
  }
});

test('the endpoints named only in the rate-limit table', { tag: '@TRACE-OTHER-ENDPOINTS' }, async ({ traceRunIds, platform, conformanceRun, observe }) => {
  const runs = runTree(traceRunIds, [null], { start: baseTime(conformanceRun) });
  const answers = [
    await platform.post('/runs/batch', { post: runs }),
    await platform.post('/runs/query', { id: [runs[0].id] }),
    await platform.post('/feedback', { run_id: runs[0].id, key: 'observed' }),
    await platform.post('/otel/v1/traces', {}),
    await platform.post('/runs/stats', {}),
  ];
  observe('TRACE-OTHER-ENDPOINTS', answers.map((r) => `${r.method} ${r.path} → ${r.status}`).join('; '));
});

test('POST /sessions makes a tracing project; DELETE /sessions/{id} and DELETE /sessions?session_ids= delete projects, which are no longer listed', {
  tag: '@TRACE-PROJECTS',
}, async ({ traceRunIds, platform, testKey, conformanceRun, time }) => {
  const start = baseTime(conformanceRun);
  const names = [`apc-project-${testKey}-one`, `apc-project-${testKey}-two`];
  const made: string[] = [];
  for (const name of names) {
    const res = await platform.post<{ id?: unknown; name?: unknown }>('/sessions', { name, description: 'made by a conformance test' });
    expectStatus(res, '2xx');
    expect(typeof res.json.id, res.describe("the project's id")).toBe('string');
    expect(res.json.name, res.describe("the project's name")).toBe(name);
    made.push(res.json.id as string);
  }
  // A run traced into the first: deleted with it.
  const [run] = runTree(traceRunIds, [null], { start });
  precondition(await platform.post('/runs', { ...run, session_name: names[0] }), 'trace a run into the project');
  await readTraceRun(platform, time, run.id);
  const listed = (name: string) => platform.get<{ id: string }[]>(`/sessions?name=${encodeURIComponent(name)}`);
  // The listing is the evidence that a project is gone: it must show the project first.
  for (const [i, name] of names.entries()) {
    const before = await untilWritten(
      time,
      () => listed(name),
      (list) => Array.isArray(list) && list.length > 0,
    );
    precondition(before, `list the project ${name}`);
    if (!Array.isArray(before.json) || !before.json.some((p) => p.id === made[i]))
      skipForPrecondition(`precondition failed: the project ${name} is listed before it is deleted: ${before.describe()}`, ['UPLOAD-READ-EXPERIMENTS']);
  }
  expectStatus(await platform.delete(`/sessions/${made[0]}`), '2xx');
  expectStatus(await platform.delete(`/sessions?session_ids=${made[1]}`), '2xx');
  for (const name of names) {
    const after = await untilWritten(
      time,
      () => listed(name),
      (list) => Array.isArray(list) && list.length === 0,
    );
    expect(after.json, after.describe(`the project ${name}, deleted, is no longer listed`)).toEqual([]);
  }
});
