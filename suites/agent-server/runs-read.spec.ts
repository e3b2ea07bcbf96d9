// §3, §4.5: reading runs back.
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { contract } from '../../specs/contract.ts';
import { endedRun, IN_PROGRESS, join, longRun, newThread, onceShown, readRun, startRun, type Run } from './runs-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

// §4.5: a retrieval operation for a single run exists (its path is not shown; the service's is
// used). The rollback and interrupt rules look runs up with it, so it must find a live run. A target
// that finds no run there may serve the retrieval elsewhere: once the run has ended it is looked up
// again, and only a target that finds it then (it serves the path) fails for not finding it at first;
// one that finds it at no time leaves the rule unjudged, explained by RUN-GET (the service's path).
test('a run just created can be looked up by its id', { tag: '@RUN-LOOKUP' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'lookup' } });
  const read = await agent.get<Run>(`/threads/${thread}/runs/${run.run_id}`);
  if (read.status < 200 || read.status >= 300) {
    await join(agent, thread, run.run_id);
    precondition(await agent.get(`/threads/${thread}/runs/${run.run_id}`), "look the run up once it has ended, at the service's path");
  }
  expectStatus(read, '2xx');
  expect(read.json.run_id, read.describe('the run looked up')).toBe(run.run_id);
});

test('GET /threads/{thread_id}/runs/{run_id} answers the run', { tag: '@RUN-GET' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { metadata: { purpose: 'get' } });
  const read = await agent.get<Run>(`/threads/${thread}/runs/${run.run_id}`);
  expectStatus(read, 200);
  expect(read.json.run_id, read.describe('run_id')).toBe(run.run_id);
  expect(read.json.thread_id, read.describe('thread_id')).toBe(thread);
  expect(read.json.metadata, read.describe('metadata given at creation')).toMatchObject({ purpose: 'get' });
});

test('an unknown run, or a run of another thread, answers 404 with a JSON error body', { tag: '@RUN-GET-UNKNOWN-404' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const other = await newThread(agent);
  const run = await startRun(agent, thread);
  expectJsonError(await agent.get(`/threads/${thread}/runs/${UNKNOWN}`), 404);
  expectJsonError(await agent.get(`/threads/${other}/runs/${run.run_id}`), 404);
});

test('a run_id that is not a UUID answers 4xx with a JSON error body', { tag: '@RUN-ID-MALFORMED' }, async ({ agent }) => {
  const thread = await newThread(agent);
  expectJsonError(await agent.get(`/threads/${thread}/runs/not-a-uuid`));
});

test("GET /threads/{thread_id}/runs lists the thread's runs, honouring limit, offset and status", { tag: '@RUN-LIST' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const ids: string[] = [];
  // Four runs: a page of two from the second differs both from the first two and from the rest.
  for (const topic of ['a', 'b', 'c', 'd']) {
    const run = await startRun(agent, thread, { input: { topic } });
    await join(agent, thread, run.run_id);
    ids.push(run.run_id);
  }
  // Listed once none of them is in progress (onceShown): a join that answered early is RUN-JOIN's failure.
  const settled = () =>
    onceShown(
      time,
      () => agent.get<Run[]>(`/threads/${thread}/runs`),
      (res) => Array.isArray(res.json) && res.json.every((r) => !IN_PROGRESS.includes(r.status ?? '')),
    );
  const all = await settled();
  expectStatus(all, 200);
  expect(all.json.map((r) => r.run_id).sort(), all.describe('every run of the thread')).toEqual([...ids].sort());
  const page = await agent.get<Run[]>(`/threads/${thread}/runs?limit=2&offset=1`);
  expectStatus(page, 200);
  expect(
    page.json.map((r) => r.run_id),
    page.describe('limit 2 offset 1'),
  ).toEqual(all.json.slice(1, 3).map((r) => r.run_id));
  const success = await agent.get<Run[]>(`/threads/${thread}/runs?status=success`);
  expectStatus(success, 200);
  expect(success.json.length, success.describe('status success')).toBe(4);
  const pending = await agent.get<Run[]>(`/threads/${thread}/runs?status=pending`);
  expectStatus(pending, 200);
  expect(pending.json, pending.describe('status pending')).toEqual([]);
  // The filter and the page together: a page is taken from the matching runs, whatever their place among all.
  const failing = await startRun(agent, thread, { input: { fail: true } });
  await join(agent, thread, failing.run_id);
  await settled();
  for (const [status, expected] of [
    ['success', ids],
    ['error', [failing.run_id]],
  ] as const) {
    const first = await agent.get<Run[]>(`/threads/${thread}/runs?status=${status}&limit=1`);
    expectStatus(first, 200);
    expect(
      first.json.map((r) => r.run_id).filter((id) => expected.includes(id)),
      first.describe(`status ${status} limit 1: one matching run`),
    ).toHaveLength(1);
    expect(first.json, first.describe(`status ${status} limit 1`)).toHaveLength(1);
  }
  const skipped = await agent.get<Run[]>(`/threads/${thread}/runs?status=success&limit=10&offset=3`);
  expectStatus(skipped, 200);
  expect(
    skipped.json.map((r) => r.status),
    skipped.describe('status success offset 3: the last of the 4 successful runs'),
  ).toEqual(['success']);
});

test('where a single run is read', { tag: '@RUN-GET-PATH' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread);
  const scoped = await agent.get(`/threads/${thread}/runs/${run.run_id}`);
  const bare = await agent.get(`/runs/${run.run_id}`);
  observe('RUN-GET-PATH', `GET /threads/{thread_id}/runs/{run_id} → ${scoped.status}; GET /runs/{run_id} → ${bare.status}`);
});

test('which run fields a target answers', { tag: '@RUN-OTHER-FIELDS' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread);
  await join(agent, thread, run.run_id);
  const read = await agent.get<Record<string, unknown>>(`/threads/${thread}/runs/${run.run_id}`);
  observe(
    'RUN-OTHER-FIELDS',
    `fields: ${Object.keys(read.json ?? {})
      .sort()
      .join(', ')}`,
  );
});

/** The statuses §3 gives as final (the contract's RunStatus x-final): success and error. */
const FINAL: string[] = contract().runStatuses.final;

// §3 gives success and error as a run's final values, and §7 speaks of a failed run: one whose graph
// fails ends error. Its status is read where the service looks runs up (a path the spec does not
// show), once it has ended (endedRun): join answering early is RUN-JOIN's failure.
test('a run whose graph fails ends with status error', { tag: '@RUN-FAILED-STATUS-ERROR' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const failing = await startRun(agent, thread, { input: { fail: true } });
  await endedRun(agent, time, thread, failing.run_id);
  const read = await agent.get<Run>(`/threads/${thread}/runs/${failing.run_id}`);
  precondition(read, 'read the ended run');
  expect(read.json.status, read.describe('the final status of a run whose graph failed')).toBe('error');
});

// The rule is about keeping a final status once reached: which one a run reaches is not its to judge
// (a failed graph's run ending success is RUN-FAILED-STATUS-ERROR's finding). Each run is read once it
// has ended (endedRun): join answering early is RUN-JOIN's failure, not this rule's.
test('success and error are final: a run that reaches either keeps it', { tag: '@RUN-STATUS-FINAL' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const reached: [Run, string][] = [];
  for (const input of [{ topic: 'final' }, { fail: true }]) {
    const run = await startRun(agent, thread, { input });
    const status = (await endedRun(agent, time, thread, run.run_id)).status;
    if (status !== undefined && FINAL.includes(status)) reached.push([run, status]);
  }
  if (reached.length === 0) {
    skipForPrecondition(`precondition failed: neither run, one that succeeds nor one whose graph fails, ended as ${FINAL.join(' or ')}`, [
      'RUN-FAILED-STATUS-ERROR',
    ]);
  }
  const later = await startRun(agent, thread, { input: { topic: 'later' } });
  await join(agent, thread, later.run_id);
  await time.pass(time.hold);
  // The reads after are what the rule judges: a run that can no longer be read kept nothing.
  for (const [run, status] of reached) {
    const read = await agent.get<Run>(`/threads/${thread}/runs/${run.run_id}`);
    expectStatus(read, 200);
    expect(read.json.status, read.describe(`still ${status} after more runs and time`)).toBe(status);
  }
});

test('which run statuses a target goes through', { tag: '@RUN-STATUSES-TRANSITIONS' }, async ({ agent, time, observe }) => {
  const thread = await newThread(agent);
  const run = await longRun(agent, time, thread);
  const seen = [run.status, (await readRun(agent, thread, run.run_id)).status];
  await time.pass(time.hold);
  await join(agent, thread, run.run_id);
  seen.push((await readRun(agent, thread, run.run_id)).status);
  observe('RUN-STATUSES-TRANSITIONS', `a delayed run: ${seen.join(' → ')}`);
});
