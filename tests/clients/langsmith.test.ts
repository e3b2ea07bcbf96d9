// The official `langsmith` JS client against the simulator's platform API: direct
// createRun/updateRun (POST and PATCH /runs), nested `traceable` calls (batched through
// POST /runs/multipart, streamed chunked) and the same with gzip, then every run read back
// with the client, checking trace_id, dotted_order and the parent links (spec §2.5, §4.3).
import { expect, test } from '@playwright/test';
import { Client, RunTree, uuid7, type Run } from 'langsmith';
import { getCurrentRunTree, traceable } from 'langsmith/traceable';
import { contract } from '../../specs/contract.ts';
import { Simulator } from '../../simulator/simulator.ts';

type Sent = { method: string; path: string; contentEncoding?: string; streamed: boolean };

let sim: Simulator;

test.beforeAll(async () => {
  sim = await Simulator.start({ seed: 'langsmith-client', quiet: true, strict: true });
});

test.afterAll(async () => {
  await sim.close();
});

/** A client of the US platform API that logs what it sends. */
function clientFor(sent: Sent[], options: { autoBatchTracing?: boolean } = {}): Client {
  const apiKey = sim.workspaces.describe().api_keys.find((k) => k.role === 'primary')!.key;
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      path: new URL(String(input instanceof Request ? input.url : input)).pathname,
      contentEncoding: headers.get('content-encoding') ?? undefined,
      streamed: init?.body instanceof ReadableStream,
    });
    return fetch(input, init);
  };
  return new Client({ apiUrl: sim.urls['platform-api'], apiKey, fetchImplementation: recordingFetch as typeof fetch, ...options });
}

/** The checks of spec §2.5 on runs read back: one trace, parents first in dotted_order. */
function expectLineage(runs: Record<string, Run>, parentOf: Record<string, string | undefined>, rootId: string): void {
  for (const [id, run] of Object.entries(runs)) {
    expect(run.id, 'the run read back').toBe(id);
    expect(run.trace_id, `trace_id of ${run.name} is the root's id`).toBe(rootId);
    const segments = run.dotted_order!.split('.');
    expect(segments[segments.length - 1], `the last segment of ${run.name} is its start time then its id`).toMatch(new RegExp(`^\\d{8}T\\d{6}\\d{0,6}Z${id}$`));
    const parent = parentOf[id];
    expect(run.parent_run_id ?? undefined, `${run.name}'s parent`).toBe(parent);
    if (parent) expect(run.dotted_order, `${run.name} extends its parent's dotted_order`).toBe(`${runs[parent].dotted_order}.${segments[segments.length - 1]}`);
    else expect(segments.length, 'the root has one segment').toBe(1);
  }
}

async function readAll(client: Client, ids: string[]): Promise<Record<string, Run>> {
  return Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await client.readRun(id)] as const)));
}

test('createRun and updateRun of a parent chain run and a child LLM run', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent, { autoBatchTracing: false });
  const parent = uuid7();
  const child = uuid7();
  await client.createRun({ id: parent, name: 'parent-chain', run_type: 'chain', inputs: { question: 'hi' }, project_name: 'apc-client' });
  await client.createRun({
    id: child,
    name: 'child-llm',
    run_type: 'llm',
    inputs: { messages: [{ role: 'user', content: 'hi' }] },
    parent_run_id: parent,
    project_name: 'apc-client',
  });
  await client.updateRun(child, { outputs: { generations: [{ text: 'hello' }] }, end_time: Date.now() });
  await client.updateRun(parent, { outputs: { answer: 'hello' }, end_time: new Date().toISOString() });

  expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([`POST /runs`, `POST /runs`, `PATCH /runs/${child}`, `PATCH /runs/${parent}`]);
  const runs = await readAll(client, [parent, child]);
  expectLineage(runs, { [parent]: undefined, [child]: parent }, parent);
  expect(runs[parent].outputs).toEqual({ answer: 'hello' });
  expect(runs[child].outputs).toEqual({ generations: [{ text: 'hello' }] });
  expect(runs[child].inputs).toEqual({ messages: [{ role: 'user', content: 'hi' }] });
  const withChildren = await client.readRun(parent, { loadChildRuns: true });
  expect(withChildren.child_runs?.map((r) => r.id)).toEqual([child]);
});

/** Runs outer → (inner, inner), as traceable records them, and answers the ids it saw. */
async function tracedConversation(client: Client, thread: string): Promise<{ outer: string; inner: string[] }> {
  const inner: string[] = [];
  let outer = '';
  const config = { client, project_name: 'apc-client', tracingEnabled: true, metadata: { thread_id: thread } };
  const answer = traceable(
    async (n: number) => {
      inner.push(getCurrentRunTree().id);
      return `inner:${n}`;
    },
    { ...config, name: 'inner', run_type: 'llm' },
  );
  const conversation = traceable(
    async (n: number) => {
      outer = getCurrentRunTree().id;
      return { a: await answer(n), b: await answer(n + 1) };
    },
    { ...config, name: 'outer' },
  );
  expect(await conversation(1)).toEqual({ a: 'inner:1', b: 'inner:2' });
  await client.awaitPendingTraceBatches();
  return { outer, inner };
}

test('nested traceable calls batch through multipart, streamed, and read back as one trace', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent);
  const { outer, inner } = await tracedConversation(client, 'thread-plain');
  const ingest = sent.filter((s) => s.path === '/runs/multipart');
  expect(ingest.length, `multipart requests among ${JSON.stringify(sent)}`).toBeGreaterThan(0);
  expect(
    ingest.every((s) => s.streamed && s.contentEncoding === undefined),
    'streamed (chunked), uncompressed',
  ).toBe(true);
  const runs = await readAll(client, [outer, ...inner]);
  expectLineage(runs, { [outer]: undefined, [inner[0]]: outer, [inner[1]]: outer }, outer);
  expect(runs[outer].outputs).toEqual({ a: 'inner:1', b: 'inner:2' });
  expect(runs[inner[1]].inputs).toEqual({ input: 2 });
  for (const run of Object.values(runs)) expect((run as Run & { thread_id?: string }).thread_id, `thread_id of ${run.name}`).toBe('thread-plain');
});

test('with gzip allowed by /info, the client compresses its multipart bodies and nothing is lost', async () => {
  sim.platform.us.instanceFlags = { ...sim.platform.us.instanceFlags, gzip_body_enabled: true };
  try {
    const sent: Sent[] = [];
    const client = clientFor(sent);
    const { outer, inner } = await tracedConversation(client, 'thread-gzip');
    const ingest = sent.filter((s) => s.path === '/runs/multipart');
    expect(ingest.length, `multipart requests among ${JSON.stringify(sent)}`).toBeGreaterThan(0);
    expect(
      ingest.every((s) => s.contentEncoding === 'gzip'),
      `gzip on every multipart request: ${JSON.stringify(ingest)}`,
    ).toBe(true);
    const runs = await readAll(client, [outer, ...inner]);
    expectLineage(runs, { [outer]: undefined, [inner[0]]: outer, [inner[1]]: outer }, outer);
    expect(runs[inner[0]].outputs).toEqual({ outputs: 'inner:1' });
  } finally {
    sim.platform.us.instanceFlags = { ...sim.platform.us.instanceFlags, gzip_body_enabled: false };
  }
});

test('createProject and deleteProject: a project made, traced into and deleted with its runs, by id and by name', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent, { autoBatchTracing: false });
  const project = await client.createProject({ projectName: 'apc-client-project', description: 'made by the client test' });
  expect([project.name, typeof project.id]).toEqual(['apc-client-project', 'string']);
  await expect(client.createProject({ projectName: 'apc-client-project' }), 'a name taken').rejects.toThrow(/409/);
  expect((await client.createProject({ projectName: 'apc-client-project', upsert: true })).id, 'upsert answers the project').toBe(project.id);
  const run = uuid7();
  await client.createRun({ id: run, name: 'in-project', run_type: 'chain', inputs: {}, project_name: 'apc-client-project' });
  expect((await client.readRun(run)).session_id).toBe(project.id);

  await client.deleteProject({ projectId: project.id });
  expect(await client.hasProject({ projectName: 'apc-client-project' })).toBe(false);
  await expect(client.readRun(run), 'its run went with it').rejects.toThrow(/404|not found/i);

  await client.createProject({ projectName: 'apc-client-project-2' });
  await client.deleteProject({ projectName: 'apc-client-project-2' });
  expect(await client.hasProject({ projectName: 'apc-client-project-2' })).toBe(false);
  expect(sent.filter((s) => s.method === 'DELETE').map((s) => s.path)).toEqual([
    `/sessions/${project.id}`,
    expect.stringMatching(/^\/sessions\/[0-9a-f-]{36}$/),
  ]);
});

test('listRuns with a filter answers the runs it selects; a part the simulator cannot apply is refused, named', async () => {
  const client = clientFor([], { autoBatchTracing: false });
  const [a, b] = [uuid7(), uuid7()];
  for (const [id, name, tags] of [
    [a, 'filter-a', ['keep']],
    [b, 'filter-b', []],
  ] as const) {
    // tags travel with the run, though CreateRunParams does not declare them.
    const run = { id, name, run_type: 'chain', inputs: {}, tags: [...tags], project_name: 'apc-client-filter' };
    await client.createRun(run);
  }
  const listed = async (props: Parameters<Client['listRuns']>[0]) => {
    const ids: string[] = [];
    for await (const run of client.listRuns(props)) ids.push(run.id);
    return ids;
  };
  expect((await listed({ projectName: 'apc-client-filter' })).sort()).toEqual([a, b].sort());
  expect(await listed({ projectName: 'apc-client-filter', filter: 'eq(name, "filter-b")' })).toEqual([b]);
  expect(await listed({ projectName: 'apc-client-filter', filter: 'and(eq(run_type, "chain"), has(tags, "keep"))' })).toEqual([a]);
  await expect(listed({ projectName: 'apc-client-filter', filter: 'search("filter")' })).rejects.toThrow(/422.*operator 'search'/s);
  await expect(listed({ projectName: 'apc-client-filter', query: 'filter' })).rejects.toThrow(/422.*does not apply query in a run query/s);
});

test('createRun without an id: the service gives the run one, found in its project', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent, { autoBatchTracing: false });
  await client.createRun({ name: 'no-id', run_type: 'chain', inputs: { q: 1 }, project_name: 'apc-client-no-id' });
  expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /runs']);
  const runs: Run[] = [];
  for await (const run of client.listRuns({ projectName: 'apc-client-no-id' })) runs.push(run);
  expect(runs.map((r) => [r.name, r.inputs, typeof r.id, r.trace_id === r.id])).toEqual([['no-id', { q: 1 }, 'string', true]]);
});

test("a run whose dotted_order time is not its start_time is ingested and marked by default, refused under strict (an interpretation's rule)", async () => {
  const lenient = await Simulator.start({ seed: 'langsmith-client-lenient', quiet: true });
  try {
    for (const [target, strict] of [
      [lenient, false],
      [sim, true],
    ] as const) {
      const apiKey = target.workspaces.describe().api_keys.find((k) => k.role === 'primary')!.key;
      const marks: string[] = [];
      const statuses: number[] = [];
      const markingFetch = async (input: string | URL | Request, init?: RequestInit) => {
        const res = await fetch(input, init);
        if (String(input).endsWith('/runs/multipart')) statuses.push(res.status);
        const header = res.headers.get(contract().requestViolationsHeader);
        if (header) marks.push(...(JSON.parse(decodeURIComponent(header)) as { type: string; at: string }[]).map((v) => `${v.type} ${v.at}`));
        return res;
      };
      const client = new Client({ apiUrl: target.urls['platform-api'], apiKey, fetchImplementation: markingFetch as typeof fetch });
      // The caller's dotted_order says an hour before its start_time.
      const start = Date.now();
      const id = uuid7();
      const stamp = new Date(start - 3_600_000)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.(\d{3})Z$/, '$1000Z');
      const run = new RunTree({
        id,
        name: 'moved-start',
        run_type: 'chain',
        inputs: { q: 1 },
        client,
        project_name: 'apc-client',
        start_time: start,
        trace_id: id,
        dotted_order: `${stamp}${id}`,
      });
      await run.postRun();
      await run.end({ answer: 1 });
      await run.patchRun();
      await client.awaitPendingTraceBatches();
      if (strict) {
        expect(statuses, 'refused under --strict').toContain(422);
        await expect(client.readRun(id)).rejects.toThrow(/404/);
      } else {
        const read = await client.readRun(id);
        expect([read.outputs, read.dotted_order]).toEqual([{ answer: 1 }, run.dotted_order]);
        expect(marks).toContain(`interpretation /post.${id}/dotted_order`);
      }
    }
  } finally {
    await lenient.close();
  }
});

test("getRunStats answers the statistics of a project's runs", async () => {
  const client = clientFor([], { autoBatchTracing: false });
  const project = await client.createProject({ projectName: 'apc-client-stats' });
  const start = Date.now();
  await client.createRun({
    id: uuid7(),
    name: 'stats-1',
    run_type: 'chain',
    inputs: {},
    project_name: 'apc-client-stats',
    start_time: start,
    end_time: start + 2000,
  });
  await client.createRun({
    id: uuid7(),
    name: 'stats-2',
    run_type: 'llm',
    inputs: {},
    project_name: 'apc-client-stats',
    start_time: start,
    error: 'boom',
    end_time: start + 4000,
  });
  // §8 allows one stats request per key in 10 s (US): this file's one.
  const stats = await client.getRunStats({ projectIds: [project.id], filter: 'eq(run_type, "chain")' });
  expect(stats).toMatchObject({ run_count: 1, error_rate: 0, latency_p50: 2 });
});

test('client.runs.retrieve and client.runs.query (v2) answer the runs with the fields selected', async () => {
  const client = clientFor([], { autoBatchTracing: false });
  const project = await client.createProject({ projectName: 'apc-client-v2' });
  const [a, b] = [uuid7(), uuid7()];
  await client.createRun({ id: a, name: 'v2-a', run_type: 'llm', inputs: { q: 1 }, project_name: 'apc-client-v2', start_time: Date.now() });
  await client.createRun({ id: b, name: 'v2-b', run_type: 'chain', inputs: {}, project_name: 'apc-client-v2', start_time: Date.now() });
  const one = await client.runs.retrieve(a, { project_id: project.id, selects: ['NAME', 'RUN_TYPE', 'STATUS', 'INPUTS', 'TRACE_ID'] });
  expect(one).toEqual({ id: a, name: 'v2-a', run_type: 'LLM', status: 'PENDING', inputs: { q: 1 }, trace_id: a });
  const found: string[] = [];
  // The window defaults to the day before the simulator's now, its virtual clock here: this test's runs are in real time.
  const window = { min_start_time: new Date(Date.now() - 3_600_000).toISOString(), max_start_time: new Date(Date.now() + 3_600_000).toISOString() };
  for await (const run of client.runs.query({ project_ids: [project.id], filter: 'eq(name, "v2-b")', selects: ['NAME'], ...window }))
    found.push(`${run.id} ${run.name}`);
  expect(found).toEqual([`${b} v2-b`]);
  await expect(client.runs.retrieve(a, { project_id: project.id, selects: ['TOTAL_COST'] }), 'a select the simulator does not keep').rejects.toThrow(
    /422.*TOTAL_COST/s,
  );
});
