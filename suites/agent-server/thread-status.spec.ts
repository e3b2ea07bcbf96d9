// §2.7, §3: a thread's status follows its runs; what threads carry.
import { expect, test } from '../../harness/fixtures.ts';
import { expectArray, expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { Thread } from '../../specs/types/agent-server.ts';
import { join, longRun, newThread, startRun, statusAfterRuns, threadStatus } from './runs-steps.ts';
import { copyOf } from './threads-steps.ts';

test('a thread is busy while a run on it is pending or running, and idle after', { tag: '@THREAD-STATUS-BUSY-DURING-RUN' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const first = await longRun(agent, time, thread);
  expect(await threadStatus(agent, thread), 'while the first run is in progress').toBe('busy');
  const second = await startRun(agent, thread, { multitask_strategy: 'enqueue' });
  expect(await threadStatus(agent, thread), 'while a run is pending behind it').toBe('busy');
  await time.pass(time.hold);
  await join(agent, thread, first.run_id);
  await join(agent, thread, second.run_id);
  expect(await statusAfterRuns(agent, time, thread), 'once no run is pending or running').toBe('idle');
});

// The status is read once the thread is no longer busy (statusAfterRuns): join answering early is RUN-JOIN's failure.
test('after its last run a thread is error if it failed, interrupted if a next node is due, idle otherwise', { tag: '@THREAD-STATUS-AFTER-RUN' }, async ({
  agent,
  time,
}) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ topic: 'ok' }, 'idle'],
    [{ fail: true }, 'error'],
    [{ interrupt: true }, 'interrupted'],
  ];
  for (const [input, status] of cases) {
    const thread = await newThread(agent);
    const run = await startRun(agent, thread, { input });
    await join(agent, thread, run.run_id);
    expect(await statusAfterRuns(agent, time, thread), `after a run with input ${JSON.stringify(input)}`).toBe(status);
  }
});

test('which thread statuses a target goes through', { tag: '@THREAD-STATUS-TRANSITIONS' }, async ({ agent, time, observe }) => {
  const thread = await newThread(agent);
  const seen = [await threadStatus(agent, thread)];
  const run = await longRun(agent, time, thread);
  seen.push(await threadStatus(agent, thread));
  await time.pass(time.hold);
  await join(agent, thread, run.run_id);
  seen.push(await threadStatus(agent, thread));
  const failing = await startRun(agent, thread, { input: { fail: true } });
  await join(agent, thread, failing.run_id);
  seen.push(await threadStatus(agent, thread));
  const recovering = await startRun(agent, thread);
  await join(agent, thread, recovering.run_id);
  seen.push(await threadStatus(agent, thread));
  observe('THREAD-STATUS-TRANSITIONS', `created, delayed run, done, failed run, good run: ${seen.join(' → ')}`);
});

test("a thread's config, when it has configurable, holds an object there", { tag: '@THREAD-CONFIG-CONFIGURABLE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { config: { configurable: { user: 'u1' } } });
  await join(agent, thread, run.run_id);
  const res = await agent.get<{ config: Record<string, unknown> }>(`/threads/${thread}`);
  expectStatus(res, '2xx');
  if (typeof res.json.config !== 'object' || res.json.config === null) {
    skipForPrecondition(`precondition failed: the thread has no config object: ${res.describe()}`, ['THREAD-SHAPE']);
  }
  // config "may contain" configurable (§2.7): a config without one keeps the rule, a configurable
  // must be an object. The run given one makes a thread that holds it on every reference server.
  if ('configurable' in res.json.config) {
    const configurable = res.json.config.configurable;
    expect(typeof configurable === 'object' && configurable !== null && !Array.isArray(configurable), res.describe('configurable is an object')).toBe(true);
  }
});

// Creation answers the thread (§4.5: "Thread"); a copy's answer has no format the spec shows, so the copy is read.
test('a thread created empty, by copy or with supersteps carries values and metadata', { tag: '@THREAD-CREATE-VALUES-METADATA' }, async ({ agent }) => {
  const empty = await agent.post<Record<string, unknown>>('/threads', {});
  const withSteps = await agent.post<Record<string, unknown>>('/threads', {
    metadata: { graph_id: 'agent' },
    supersteps: [{ updates: [{ values: { topic: 't' }, as_node: 'prepare' }] }],
  });
  expectStatus(empty, '2xx');
  expectStatus(withSteps, '2xx');
  const copy = await agent.get<Record<string, unknown>>(`/threads/${await copyOf(agent, String(withSteps.json.thread_id))}`);
  expectStatus(copy, '2xx');
  for (const res of [empty, withSteps, copy]) {
    expect(res.json, res.describe('has values')).toHaveProperty('values');
    const metadata = res.json.metadata;
    expect(typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata), res.describe('has metadata, an object')).toBe(true);
  }
});

test('supersteps of the shape {updates: [{values, as_node}]} are accepted', { tag: '@THREAD-SUPERSTEPS-SHAPE' }, async ({ agent }) => {
  const res = await agent.post('/threads', {
    metadata: { graph_id: 'agent' },
    supersteps: [{ updates: [{ values: { topic: 'a' }, as_node: 'prepare' }] }, { updates: [{ values: { count: 2 }, as_node: 'respond' }] }],
  });
  expectStatus(res, '2xx');
});

test('a search without limit, offset or sort answers at most 10 threads, newest created first', { tag: '@THREAD-SEARCH-DEFAULTS' }, async ({
  agent,
  testKey,
  time,
}) => {
  const created: string[] = [];
  for (let i = 0; i < 11; i++) {
    const res = await agent.post<Thread>('/threads', { metadata: { apc_test: testKey } });
    precondition(res, 'create a thread');
    created.push(res.json.thread_id);
    await time.pass(5);
  }
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey } });
  const found = expectArray(res, "search the test's threads");
  expect(found.length, res.describe('at most 10')).toBe(10);
  expect(
    found.map((t) => t.thread_id),
    res.describe('newest first, from offset 0'),
  ).toEqual([...created].reverse().slice(0, 10));
});

test('a history limit that is not an integer answers 4xx with a JSON error body', { tag: '@THREAD-HISTORY-INVALID' }, async ({ agent }) => {
  const thread = await newThread(agent);
  expectJsonError(await agent.post(`/threads/${thread}/history`, { limit: 'two' }));
  expectJsonError(await agent.post(`/threads/${thread}/history`, { limit: 1.5 }));
});
