// §3: a run created while another is in progress, under each multitask strategy.
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { servesOperation } from '../../harness/target.ts';
import { sleep, type Time } from '../../harness/time.ts';
import type { ThreadState } from '../../specs/types/agent-server.ts';
import { expectEnded, expectOnlyRun, IN_PROGRESS, join, longRun, newThread, readRun, readState, texts, threadWithRun, type Run } from './runs-steps.ts';

/** Whether the target serves an operation the spec does not show (its config's not_shown_operations). */
const served = (run: ConformanceRun, operationId: string) => servesOperation(run.target, 'agent-server', operationId);

/**
 * POSTs `body` to `path` on a thread whose run is in progress. A refusal, or a run that ended the
 * one in progress, is answered at once; a wait or a stream queued behind that run (its strategy
 * ignored) only once the run's hold has passed, which is then let pass. `atOnce` says which.
 */
async function whileBusy(agent: ApiClient, time: Time, path: string, body: Record<string, unknown>): Promise<{ res: ApiResponse; atOnce: boolean }> {
  const pending = agent.post(path, body, { kind: 'timed' });
  const early = await Promise.race([pending, sleep(time.virtual ? 1_000 : time.wall(time.timeouts.settle, 1_000)).then(() => undefined)]);
  if (early) return { res: early, atOnce: true };
  await time.pass(time.hold);
  return { res: await pending, atOnce: false };
}

test.describe('reject', () => {
  // Each refusal is judged as it comes: a target that took reject for another strategy may have
  // ended or deleted the run in progress, so nothing the test does after may depend on that run.
  test('a run created with reject while another is in progress answers 409', { tag: '@MULTITASK-REJECT-409' }, async ({ agent, time }) => {
    const thread = await newThread(agent);
    await longRun(agent, time, thread);
    const body = { assistant_id: 'agent', input: { topic: 'refused' }, multitask_strategy: 'reject' };
    expectStatus(await agent.post(`/threads/${thread}/runs`, body), 409);
    // wait takes the create-run body (§4.5), multitask_strategy included: it refuses at once too.
    const { res, atOnce } = await whileBusy(agent, time, `/threads/${thread}/runs/wait`, body);
    expect(atOnce, res.describe('wait with reject was refused at once, not queued')).toBe(true);
    expectStatus(res, 409);
  });

  // Evidence the spec shows: what the refusal answers, and the thread's state and history (§4.5).
  // Where the target serves a listing of the thread's runs (a path the spec does not show), it must
  // not show the refused run either.
  test('the refused run is not created: none is answered, the thread state and history never hold its data, and it is not listed', {
    tag: '@MULTITASK-REJECT-NOT-CREATED',
  }, async ({ agent, time, conformanceRun }) => {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread, { topic: 'original' });
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'refused' }, multitask_strategy: 'reject' });
    // A run answered as created is the finding itself; which status a refusal answers is MULTITASK-REJECT-409's.
    const created = res.status >= 200 && res.status < 300 && typeof res.json?.run_id === 'string';
    expect(created, res.describe('reject, while a run is in progress, created no run')).toBe(false);
    await time.pass(time.hold);
    await join(agent, thread, first.run_id);
    // A refused run queued all the same starts once the original ends: it is given the hold to show.
    await time.pass(time.hold);
    const state = await readState(agent, thread);
    expect(state.values.topic, 'the state holds the original run').toBe('original');
    expect(
      texts(state).some((t) => t.includes('refused')),
      'no data of the refused run in the state',
    ).toBe(false);
    // An empty or refused history holds nothing of it either: THREAD-HISTORY judges the history itself.
    const history = await agent.post<ThreadState[]>(`/threads/${thread}/history`, { limit: 100 });
    const snapshots = history.status === 200 && Array.isArray(history.json) ? history.json : [];
    expect(
      snapshots.filter((s) => s.values?.topic === 'refused' || texts(s).some((t) => t.includes('refused'))).length,
      history.describe('no snapshot of the history holds data of the refused run'),
    ).toBe(0);
    if (served(conformanceRun, 'listRuns')) {
      const list = await agent.get<Run[]>(`/threads/${thread}/runs`);
      // A list that does not show the original run cannot show that no other was made (RUN-LIST judges it).
      const ids = list.status === 200 && Array.isArray(list.json) ? list.json.map((r) => r.run_id) : [];
      if (ids.includes(first.run_id)) expect(ids, list.describe('only the original run is listed')).toEqual([first.run_id]);
    }
  });

  test('after a reject refusal the original run continues to completion', { tag: '@MULTITASK-REJECT-ORIGINAL-CONTINUES' }, async ({
    agent,
    time,
    conformanceRun,
  }) => {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread, { topic: 'continues' });
    const res = await agent.post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'reject' });
    if (res.status < 400) {
      skipForPrecondition(`precondition failed: reject did not refuse, so there is no refusal to continue after: ${res.describe()}`, [
        'MULTITASK-REJECT-409',
        'MULTITASK-REJECT-NOT-CREATED',
      ]);
    }
    await time.pass(time.hold);
    // The original run is the rule's subject: its join (§4.5: returns once the run has completed) and
    // the thread's state, which holds its last node's output, are judged.
    expectStatus(await agent.get(`/threads/${thread}/runs/${first.run_id}/join`), '2xx');
    expect(texts(await readState(agent, thread)), 'its output is in the thread').toContain('echo: continues');
    // Where the target serves a lookup of the run (a path the spec does not show), it reads success.
    if (served(conformanceRun, 'getRun')) {
      const original = await agent.get<Run>(`/threads/${thread}/runs/${first.run_id}`);
      if (original.status === 200) expect(original.json.status, original.describe('the original run')).toBe('success');
    }
  });

  test('what the reject refusal says', { tag: '@MULTITASK-REJECT-BODY' }, async ({ agent, time, observe }) => {
    const thread = await newThread(agent);
    await longRun(agent, time, thread);
    const res = await agent.post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'reject' });
    observe('MULTITASK-REJECT-BODY', `status ${res.status}, content-type ${res.headers['content-type'] ?? '(none)'}, body ${res.text.slice(0, 200)}`);
  });
});

test.describe('rollback', () => {
  /**
   * A run in progress, then a rollback run. The earlier run must have ended at once: when it runs
   * on, the test fails now rather than wait on a rollback run queued behind it (where the target
   * serves no run lookup, its hold is let pass instead). That the new run is created at all is
   * DELETES' rule, a precondition for the others; what is only observed takes the rollback as given.
   * With `lookups`, for the rules judged through a run lookup (a path the spec does not show), the
   * new run must be found where runs are looked up, so that a lookup of the earlier one failing says
   * it is gone, not that lookups fail.
   */
  async function rolledBack(
    agent: ApiClient,
    time: Time,
    conformanceRun: ConformanceRun,
    { created = 'precondition', lookups = false }: { created?: 'checked' | 'precondition' | 'observed'; lookups?: boolean } = {},
  ) {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread, { topic: 'first' });
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'second' }, multitask_strategy: 'rollback' });
    if (created === 'checked') expectStatus(res, '2xx');
    else precondition(res, 'create the rollback run');
    if (served(conformanceRun, 'getRun')) {
      await expectEnded(agent, time, thread, first.run_id, 'rollback was accepted', created === 'observed' ? ['MULTITASK-ROLLBACK-DELETES'] : undefined);
    } else await time.pass(time.hold);
    await join(agent, thread, res.json.run_id);
    if (lookups) precondition(await agent.get(`/threads/${thread}/runs/${res.json.run_id}`), 'look up the new run');
    return { thread, first, res };
  }

  // Which runs exist is shown only by a listing of the thread's runs (a path the spec does not show): a
  // precondition, explained by RUN-LIST where the target does not serve it.
  test('rollback interrupts and deletes the run in progress, and creates the new run', { tag: '@MULTITASK-ROLLBACK-DELETES' }, async ({
    agent,
    time,
    conformanceRun,
  }) => {
    const { thread, first, res } = await rolledBack(agent, time, conformanceRun, { created: 'checked' });
    const list = await agent.get<Run[]>(`/threads/${thread}/runs`);
    const runs = preconditionArray(list, 'list the runs of the thread');
    if (!runs.some((r) => r.run_id === res.json.run_id)) {
      skipForPrecondition(
        `precondition failed: the list does not show the new run ${res.json.run_id}, so cannot show the earlier one is gone: ${list.describe()}`,
        ['RUN-LIST'],
      );
    }
    expect(
      runs.map((r) => r.run_id),
      list.describe('the earlier run is deleted, the new one listed'),
    ).toEqual([res.json.run_id]);
    expect(runs[0].status, 'the new run completed').toBe('success');
    expect(first.run_id).not.toBe(res.json.run_id);
  });

  test('a later lookup of the deleted run fails', { tag: '@MULTITASK-ROLLBACK-LOOKUP-FAILS' }, async ({ agent, time, conformanceRun }) => {
    const { thread, first } = await rolledBack(agent, time, conformanceRun, { lookups: true });
    const lookup = await agent.get(`/threads/${thread}/runs/${first.run_id}`);
    expect(lookup.status >= 200 && lookup.status < 300, lookup.describe('the deleted run is not found')).toBe(false);
  });

  test('a lookup of the deleted run answers 404 with a JSON error body', { tag: '@MULTITASK-ROLLBACK-LOOKUP-404' }, async ({ agent, time, conformanceRun }) => {
    const { thread, first } = await rolledBack(agent, time, conformanceRun, { lookups: true });
    expectJsonError(await agent.get(`/threads/${thread}/runs/${first.run_id}`), 404);
  });

  test('what a lookup of the deleted run answers', { tag: '@MULTITASK-ROLLBACK-LOOKUP-RESPONSE' }, async ({ agent, time, conformanceRun, observe }) => {
    const { thread, first } = await rolledBack(agent, time, conformanceRun, { created: 'observed', lookups: true });
    const lookup = await agent.get(`/threads/${thread}/runs/${first.run_id}`);
    observe('MULTITASK-ROLLBACK-LOOKUP-RESPONSE', `status ${lookup.status}, body ${lookup.text.slice(0, 200)}`);
  });

  test('after a rollback the thread state holds only data of the new run', { tag: '@MULTITASK-ROLLBACK-STATE' }, async ({ agent, time, conformanceRun }) => {
    const { thread } = await rolledBack(agent, time, conformanceRun);
    const state = await readState(agent, thread);
    expect(state.values.topic, 'the topic of the new run').toBe('second');
    expect(
      texts(state).filter((t) => t.includes('first')),
      'no data of the deleted run',
    ).toEqual([]);
    expect(texts(state), 'the output of the new run').toContain('echo: second');
  });

  // The thread's state shows whether the deleted run ran again (§4.5); whether it reappears, a listing
  // and a lookup of runs, where the target serves them (paths the spec does not show).
  test('the deleted run never runs again and never reappears', { tag: '@MULTITASK-ROLLBACK-NO-RESTART' }, async ({ agent, time, conformanceRun }) => {
    const { thread, first, res } = await rolledBack(agent, time, conformanceRun);
    await time.pass(time.hold * 2);
    expect(
      texts(await readState(agent, thread)).filter((t) => t.includes('first')),
      'it wrote nothing later',
    ).toEqual([]);
    if (served(conformanceRun, 'listRuns')) {
      const list = await agent.get<Run[]>(`/threads/${thread}/runs`);
      const ids = list.status === 200 && Array.isArray(list.json) ? list.json.map((r) => r.run_id) : [];
      // A list that does not show the new run cannot show the deleted one gone (RUN-LIST judges it).
      if (ids.includes(res.json.run_id)) expect(ids, list.describe('the deleted run is not listed')).not.toContain(first.run_id);
    }
    if (served(conformanceRun, 'getRun') && (await agent.get(`/threads/${thread}/runs/${res.json.run_id}`)).status === 200) {
      const lookup = await agent.get(`/threads/${thread}/runs/${first.run_id}`);
      expect(lookup.status >= 200 && lookup.status < 300, lookup.describe('still not found')).toBe(false);
    }
  });
});

test.describe('interrupt', () => {
  // "Kept" is shown only by a lookup of runs (a path the spec does not show): the new run's lookup is
  // a precondition, explained by RUN-GET where the target does not serve it.
  test('interrupt keeps the first run, interrupted, and creates the new one', { tag: '@MULTITASK-INTERRUPT-KEEPS' }, async ({
    agent,
    time,
    conformanceRun,
  }) => {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread, { topic: 'kept' });
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'interrupting' }, multitask_strategy: 'interrupt' });
    expectStatus(res, '2xx');
    await expectEnded(agent, time, thread, first.run_id, 'interrupt was accepted');
    await join(agent, thread, res.json.run_id);
    // Where the new run is found, the kept one must be too.
    precondition(await agent.get(`/threads/${thread}/runs/${res.json.run_id}`), 'look up the new run');
    const kept = await agent.get<Run>(`/threads/${thread}/runs/${first.run_id}`);
    expectStatus(kept, '2xx');
    expect(IN_PROGRESS, kept.describe('the first run is no longer in progress')).not.toContain(kept.json.status);
    if (served(conformanceRun, 'listRuns')) {
      const list = await agent.get<Run[]>(`/threads/${thread}/runs`);
      const ids = list.status === 200 && Array.isArray(list.json) ? list.json.map((r) => r.run_id) : [];
      // A list that does not show the new run is RUN-LIST's finding.
      if (ids.includes(res.json.run_id)) expect(ids.sort(), list.describe('both runs are listed')).toEqual([first.run_id, res.json.run_id].sort());
    }
    expect(texts(await readState(agent, thread)), 'the new run completed').toContain('echo: interrupting');
  });

  test('the interrupted run ends with status interrupted', { tag: '@MULTITASK-INTERRUPT-STATUS' }, async ({ agent, time }) => {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread);
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'interrupt' });
    precondition(res, 'create the interrupting run');
    await expectEnded(agent, time, thread, first.run_id, 'interrupt was accepted');
    await join(agent, thread, res.json.run_id);
    expect((await readRun(agent, thread, first.run_id)).status, 'the first run').toBe('interrupted');
  });
});

test('enqueue: the new run waits until the earlier one finishes, then both apply in order', { tag: '@MULTITASK-ENQUEUE-ORDER' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const first = await longRun(agent, time, thread, { topic: 'one' });
  const created = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'two' }, multitask_strategy: 'enqueue' });
  expectStatus(created, '2xx');
  const second = created.json;
  expect((await readRun(agent, thread, second.run_id)).status, 'queued behind the first').toBe('pending');
  await time.pass(time.hold);
  await join(agent, thread, second.run_id);
  expect((await readRun(agent, thread, first.run_id)).status, 'the first run').toBe('success');
  expect((await readRun(agent, thread, second.run_id)).status, 'the second run').toBe('success');
  const answers = texts(await readState(agent, thread)).filter((t) => t.startsWith('echo:'));
  expect(answers, 'both answers, in creation order').toEqual(['echo: one', 'echo: two']);
});

test('a run created without multitask_strategy behaves as enqueue', { tag: '@MULTITASK-DEFAULT' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const first = await longRun(agent, time, thread, { topic: 'one' });
  const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'two' } });
  expectStatus(res, '2xx');
  expect((await readRun(agent, thread, res.json.run_id)).status, 'queued behind the first').toBe('pending');
  await time.pass(time.hold);
  await join(agent, thread, res.json.run_id);
  expect((await readRun(agent, thread, first.run_id)).status, 'the first run completed').toBe('success');
  const answers = texts(await readState(agent, thread)).filter((t) => t.startsWith('echo:'));
  expect(answers, 'both answers, in creation order').toEqual(['echo: one', 'echo: two']);
});

test('an unknown multitask_strategy answers 4xx with a JSON error body and creates no run', { tag: '@MULTITASK-INVALID' }, async ({ agent }) => {
  const { thread, runId } = await threadWithRun(agent);
  expectJsonError(await agent.post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'bogus' }));
  expectJsonError(await agent.post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: {}, multitask_strategy: 'bogus' }));
  await expectOnlyRun(agent, thread, runId, 'multitask_strategy bogus');
});

/** The run in progress was stopped by the later run: deleted, or ended without running to its end. */
async function expectStopped(agent: ApiClient, time: Time, thread: string, runId: string, why: string): Promise<void> {
  await expectEnded(agent, time, thread, runId, why);
  const read = await agent.get<Run>(`/threads/${thread}/runs/${runId}`);
  const completed = read.status >= 200 && read.status < 300 && read.json.status === 'success';
  expect(completed, read.describe(`${why}, yet the earlier run ran to its end`)).toBe(false);
}

// On an idle thread every strategy just creates a run, as does a target that ignores them: only a
// run in progress shows each one taken for what it is. Each operation that takes the create-run
// body takes the strategy (§4.5).
test.describe('multitask_strategy accepts reject, rollback and interrupt', { tag: '@MULTITASK-STRATEGIES' }, () => {
  for (const [operation, path] of [
    ['create run', 'runs'],
    ['stream run', 'runs/stream'],
    ['wait run', 'runs/wait'],
  ] as const) {
    test(operation, async ({ agent, time }) => {
      for (const strategy of ['reject', 'rollback', 'interrupt']) {
        const thread = await newThread(agent);
        const body = { assistant_id: 'agent', input: {}, multitask_strategy: strategy };
        const idle = await agent.post<Run>(`/threads/${thread}/${path}`, body);
        expectStatus(idle, '2xx');
        if (path === 'runs') await join(agent, thread, idle.json.run_id);
        const first = await longRun(agent, time, thread);
        const { res } = await whileBusy(agent, time, `/threads/${thread}/${path}`, body);
        if (strategy === 'reject') {
          expect(res.status >= 400 && res.status < 500, res.describe('reject, accepted on the idle thread, refuses while a run is in progress')).toBe(true);
        } else {
          expectStatus(res, '2xx');
          await expectStopped(agent, time, thread, first.run_id, `${strategy} was accepted`);
        }
      }
    });
  }
});

// A target that ignores the field refuses both runs (its default is reject) or takes both.
test('the strategy travels as the body field multitask_strategy', { tag: '@MULTITASK-WIRE-NAME' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const first = await longRun(agent, time, thread);
  const refused = await agent.post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'reject' });
  expect(refused.status >= 400 && refused.status < 500, refused.describe('multitask_strategy reject is honoured')).toBe(true);
  const taken = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'interrupt' });
  expectStatus(taken, '2xx');
  await expectEnded(agent, time, thread, first.run_id, 'multitask_strategy interrupt is honoured');
  await join(agent, thread, taken.json.run_id);
});
