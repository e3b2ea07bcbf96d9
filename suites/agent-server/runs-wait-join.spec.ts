// §4.5: join, wait and stateless wait answer after the run completed.
import { expect, test } from '../../harness/fixtures.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { sleep } from '../../harness/time.ts';
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ThreadState } from '../../specs/types/agent-server.ts';
import { discardingWebhook, ECHO, join, longRun, newThread, onceShown, readState, type Run, startRun, texts } from './runs-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

// What the run leaves is read the moment join answered, on any clock: a join that answers early
// finds the run's output (the graph writes `echo: <topic>` as it ends, after its delay) not yet in
// the thread's state, and the run still in progress where the target serves a read of it (a path
// the spec does not show, read only then); a read once the hold has passed would find both whatever join did.
test('join returns once the run has completed, and not before', { tag: '@RUN-JOIN' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const run = await longRun(agent, time, thread, { topic: 'joined' });
  const output = `${ECHO}joined`;
  const stateNow = () => agent.get<ThreadState>(`/threads/${thread}/state`);
  const holdsOutput = (state: ApiResponse<ThreadState>) => state.status === 200 && texts({ values: state.json?.values ?? {} }).includes(output);
  const joining = agent.get(`/threads/${thread}/runs/${run.run_id}/join`, { kind: 'timed' }).then(async (res) => ({
    res,
    state: await stateNow(),
    read: agent.serves('getRun') ? await agent.get<Run>(`/threads/${thread}/runs/${run.run_id}`) : undefined,
  }));
  // A join that answers early does so at once: what the run leaves is then read before any time passes.
  await Promise.race([joining, sleep(300)]);
  await time.pass(time.hold);
  const { res, state, read } = await joining;
  expectStatus(res, '2xx');
  precondition(state, 'read the thread state');
  const early = !holdsOutput(state);
  // The output's absence shows an early join only where the run writes its output to the state at all.
  const later = early ? await onceShown(time, stateNow, holdsOutput) : state;
  if (!holdsOutput(later)) {
    skipForPrecondition(
      `precondition failed: the run's output never reached the thread's state, which then shows nothing of when it ended: ${later.describe()}`,
      ['RUN-WRITES-THREAD-STATE'],
    );
  }
  expect(early, state.describe("the run had completed when join answered: its output is in the thread's state")).toBe(false);
  // A read of the run that answers nothing shows nothing here: RUN-GET judges it.
  if (read?.status === 200) expect(read.json.status, read.describe('the run had completed when join answered')).toBe('success');
});

test('what join answers', { tag: '@RUN-JOIN-FORMAT' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread);
  const res = await agent.get(`/threads/${thread}/runs/${run.run_id}/join`);
  observe(
    'RUN-JOIN-FORMAT',
    `status ${res.status}, content-type ${res.headers['content-type'] ?? '(none)'}, body keys: ${Object.keys((res.json as object) ?? {}).join(', ') || res.text.slice(0, 80)}`,
  );
});

test('join answers the final state values, or {__error__: {error, message}} for a failed run', { tag: '@RUN-JOIN-VALUES' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const ok = await startRun(agent, thread, { input: { topic: 'values' } });
  const res = await agent.get<Record<string, unknown>>(`/threads/${thread}/runs/${ok.run_id}/join`);
  expectStatus(res, 200);
  expect(res.headers['content-type'] ?? '', res.describe('JSON')).toMatch(/application\/json/);
  expect(res.json, res.describe('the final state values')).toEqual((await readState(agent, thread)).values);
  expect(texts({ values: res.json }), res.describe("the values hold the run's answer")).toContain('echo: values');
  const failing = await startRun(agent, thread, { input: { fail: true } });
  const failed = await agent.get<{ __error__?: { error?: unknown; message?: unknown } }>(`/threads/${thread}/runs/${failing.run_id}/join`);
  expectStatus(failed, 200);
  expect(typeof failed.json.__error__?.error, failed.describe('__error__.error')).toBe('string');
  expect(typeof failed.json.__error__?.message, failed.describe('__error__.message')).toBe('string');
});

test('joining an unknown run answers 404 with a JSON error body', { tag: '@RUN-JOIN-UNKNOWN-404' }, async ({ agent }) => {
  const thread = await newThread(agent);
  expectJsonError(await agent.get(`/threads/${thread}/runs/${UNKNOWN}/join`), 404);
  // A run is known on its own thread only, as a read of it is (RUN-GET-UNKNOWN-404).
  const other = await newThread(agent);
  const run = await startRun(agent, other);
  await join(agent, other, run.run_id);
  expectJsonError(await agent.get(`/threads/${thread}/runs/${run.run_id}/join`), 404);
});

// The run takes the target's hold, and wait is given a moment before that time passes: a wait that
// answers early does so before the graph's last node wrote its answer, which the result must hold. The
// result's format is not shown (§4.5): the answer must be in it, in whatever form (RUN-WAIT-VALUES judges
// the reference's). No read the spec does not show (the run list) is needed to tell.
test('POST /threads/{thread_id}/runs/wait answers the result after the run completed', { tag: '@RUN-WAIT' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const waiting = agent.post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: { topic: 'waited', delay_ms: time.hold } }, { kind: 'timed' });
  // A wait that answers early does so at once.
  await Promise.race([waiting, sleep(300)]);
  await time.pass(time.hold);
  const res = await waiting;
  expectStatus(res, '2xx');
  expect(res.text, res.describe('the result holds the answer of the run, which ends after its hold')).toContain('echo: waited');
});

test('POST /runs/wait runs statelessly, accepts webhook and answers the result after completion', { tag: '@RUN-WAIT-STATELESS' }, async ({
  agent,
  conformanceRun,
}) => {
  const res = await agent.post('/runs/wait', {
    assistant_id: 'agent',
    input: { topic: 'stateless' },
    webhook: discardingWebhook(conformanceRun, 'wait?token=t'),
  });
  expectStatus(res, '2xx');
  expect(res.text, res.describe('the result holds the answer')).toContain('echo: stateless');
});

test('what wait answers', { tag: '@RUN-WAIT-FORMAT' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const stateful = await agent.post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: {} });
  const stateless = await agent.post('/runs/wait', { assistant_id: 'agent', input: {} });
  observe(
    'RUN-WAIT-FORMAT',
    `stateful: ${stateful.status} ${stateful.headers['content-type'] ?? '(none)'}; stateless: ${stateless.status} ${stateless.headers['content-type'] ?? '(none)'}`,
  );
});

test('wait answers the final state values, or {__error__: {error, message}} for a failed run', { tag: '@RUN-WAIT-VALUES' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const res = await agent.post<Record<string, unknown>>(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: { topic: 'final values' } });
  expectStatus(res, 200);
  expect(res.headers['content-type'] ?? '', res.describe('JSON')).toMatch(/application\/json/);
  expect(res.json, res.describe('the final state values')).toEqual((await readState(agent, thread)).values);
  expect(texts({ values: res.json }), res.describe("the values hold the run's answer")).toContain('echo: final values');
  const failed = await agent.post<{ __error__?: { error?: unknown; message?: unknown } }>(`/threads/${thread}/runs/wait`, {
    assistant_id: 'agent',
    input: { fail: true },
  });
  expectStatus(failed, 200);
  expect(typeof failed.json.__error__?.error, failed.describe('__error__.error')).toBe('string');
  expect(typeof failed.json.__error__?.message, failed.describe('__error__.message')).toBe('string');
});

test('how long a run may execute', { tag: '@RUN-MAX-EXECUTION-TIME' }, async ({ agent, time, observe }) => {
  const thread = await newThread(agent);
  const run = await longRun(agent, time, thread);
  await time.pass(time.hold);
  const res = await agent.get(`/threads/${thread}/runs/${run.run_id}/join`);
  observe('RUN-MAX-EXECUTION-TIME', `not probed beyond a run of ${time.hold} ms, which completed (${res.status}); the limit is not observable in a short run`);
});
