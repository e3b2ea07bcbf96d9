// §3: a run created while another is in progress, under each multitask strategy.
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition, preconditionArray } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { ruleNotJudged, skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { servesOperation } from '../../harness/target.ts';
import { listedRuns, ofThread } from './run-list-steps.ts';
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
    const listed = await listedRuns(agent, conformanceRun, thread);
    // A list that does not show the original run cannot show that no other was made (RUN-LIST judges it).
    const ids = listed?.runs.map((r) => r.run_id) ?? [];
    if (listed && ids.includes(first.run_id)) expect(ids, listed.res.describe('only the original run is listed')).toEqual([first.run_id]);
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
   * A run in progress, then a rollback run. That the new run is created and the earlier one deleted
   * is DELETES' rule, which `created: 'checked'` judges: the earlier run must have ended at once, and
   * when it runs on the test fails now rather than wait on a rollback run queued behind it. For the
   * other rules, which speak of the run rollback deleted, both are preconditions DELETES explains.
   * Where the target serves no run lookup, or with `readEarlier: false` (a rule judged on the thread's
   * state alone), the earlier run's hold is let pass instead. With `lookups`, for the rules judged
   * through a run lookup (a path the spec does not show), the new run must be found where runs are
   * looked up, so that a lookup of the earlier one failing says it is gone, not that lookups fail.
   */
  async function rolledBack(
    agent: ApiClient,
    time: Time,
    conformanceRun: ConformanceRun,
    { created = 'precondition', lookups = false, readEarlier = true }: { created?: 'checked' | 'precondition'; lookups?: boolean; readEarlier?: boolean } = {},
  ) {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread, { topic: 'first' });
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'second' }, multitask_strategy: 'rollback' });
    if (created === 'checked') expectStatus(res, '2xx');
    else precondition(res, 'create the rollback run', ['MULTITASK-ROLLBACK-DELETES']);
    if (readEarlier && served(conformanceRun, 'getRun')) {
      await expectEnded(agent, time, thread, first.run_id, 'rollback was accepted', created === 'checked' ? undefined : ['MULTITASK-ROLLBACK-DELETES']);
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
    const runs = ofThread(preconditionArray(list, 'list the runs of the thread'), thread);
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

  /**
   * The earlier run, where a listing of the thread's runs (a path the spec does not show) is served and
   * shows the new run, must not be listed beside it: a run still listed was not deleted, which is
   * DELETES' finding, and the rules about the run rollback deleted are then not judged.
   */
  async function expectListedAsDeleted(agent: ApiClient, conformanceRun: ConformanceRun, thread: string, earlier: string, later: string) {
    const listed = await listedRuns(agent, conformanceRun, thread);
    const ids = listed?.runs.map((r) => r.run_id) ?? [];
    if (listed && ids.includes(later) && ids.includes(earlier)) {
      skipForPrecondition(`precondition failed: the earlier run ${earlier} is still listed beside the new one: ${listed.res.describe()}`, [
        'MULTITASK-ROLLBACK-DELETES',
      ]);
    }
  }

  test('a later lookup of the deleted run fails', { tag: '@MULTITASK-ROLLBACK-LOOKUP-FAILS' }, async ({ agent, time, conformanceRun }) => {
    const { thread, first, res } = await rolledBack(agent, time, conformanceRun, { lookups: true });
    await expectListedAsDeleted(agent, conformanceRun, thread, first.run_id, res.json.run_id);
    const lookup = await agent.get(`/threads/${thread}/runs/${first.run_id}`);
    expect(lookup.status >= 200 && lookup.status < 300, lookup.describe('the deleted run is not found')).toBe(false);
  });

  test('a lookup of the deleted run answers 404 with a JSON error body', { tag: '@MULTITASK-ROLLBACK-LOOKUP-404' }, async ({ agent, time, conformanceRun }) => {
    const { thread, first, res } = await rolledBack(agent, time, conformanceRun, { lookups: true });
    await expectListedAsDeleted(agent, conformanceRun, thread, first.run_id, res.json.run_id);
    expectJsonError(await agent.get(`/threads/${thread}/runs/${first.run_id}`), 404);
  });

  test('what a lookup of the deleted run answers', { tag: '@MULTITASK-ROLLBACK-LOOKUP-RESPONSE' }, async ({ agent, time, conformanceRun, observe }) => {
    const { thread, first } = await rolledBack(agent, time, conformanceRun, { lookups: true });
    const lookup = await agent.get(`/threads/${thread}/runs/${first.run_id}`);
    observe('MULTITASK-ROLLBACK-LOOKUP-RESPONSE', `status ${lookup.status}, body ${lookup.text.slice(0, 200)}`);
  });

  // The rule's evidence is the thread's state alone: the earlier run is not read first (whether it
  // ended or was deleted is DELETES' to judge), its hold is let pass, and the state must show only the
  // new run, whatever became of the earlier one.
  test('after a rollback the thread state holds only data of the new run', { tag: '@MULTITASK-ROLLBACK-STATE' }, async ({ agent, time, conformanceRun }) => {
    const { thread } = await rolledBack(agent, time, conformanceRun, { readEarlier: false });
    const state = await readState(agent, thread);
    expect(state.values.topic, 'the topic of the new run').toBe('second');
    expect(
      texts(state).filter((t) => t.includes('first')),
      'no data of the deleted run',
    ).toEqual([]);
    expect(texts(state), 'the output of the new run').toContain('echo: second');
  });

  // Judged from what shows just after the rollback, once the run is shown deleted (DELETES judges
  // that): the thread's state (§4.5) must gain nothing of it later, and where the target lists and
  // looks up runs (paths the spec does not show) and they show it gone, it must stay gone. Data of it
  // already in the state is ROLLBACK-STATE's finding; a lookup that still finds it, LOOKUP-FAILS'.
  test('the deleted run never runs again and never reappears', { tag: '@MULTITASK-ROLLBACK-NO-RESTART' }, async ({ agent, time, conformanceRun }) => {
    const { thread, first, res } = await rolledBack(agent, time, conformanceRun);
    await expectListedAsDeleted(agent, conformanceRun, thread, first.run_id, res.json.run_id);
    const ofFirst = async () => texts(await readState(agent, thread)).filter((t) => t.includes('first'));
    const before = await ofFirst();
    const lookup = () => agent.get(`/threads/${thread}/runs/${first.run_id}`);
    const looksUp = served(conformanceRun, 'getRun') && (await agent.get(`/threads/${thread}/runs/${res.json.run_id}`)).status === 200;
    const lookedUpBefore = looksUp ? await lookup() : undefined;
    if (lookedUpBefore && lookedUpBefore.status >= 200 && lookedUpBefore.status < 300) {
      skipForPrecondition(`precondition failed: the earlier run is still found just after the rollback: ${lookedUpBefore.describe()}`, [
        'MULTITASK-ROLLBACK-LOOKUP-FAILS',
      ]);
    }
    await time.pass(time.hold * 2);
    expect(await ofFirst(), 'it wrote nothing later').toEqual(before);
    const listed = await listedRuns(agent, conformanceRun, thread);
    const ids = listed?.runs.map((r) => r.run_id) ?? [];
    // A list that does not show the new run cannot show the deleted one gone (RUN-LIST judges it).
    if (listed && ids.includes(res.json.run_id)) expect(ids, listed.res.describe('the deleted run is not listed')).not.toContain(first.run_id);
    if (lookedUpBefore) {
      const after = await lookup();
      expect(after.status >= 200 && after.status < 300, after.describe('still not found')).toBe(false);
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
    const listed = await listedRuns(agent, conformanceRun, thread);
    const ids = listed?.runs.map((r) => r.run_id) ?? [];
    // A list that does not show the new run is RUN-LIST's finding.
    if (listed && ids.includes(res.json.run_id))
      expect(ids.sort(), listed.res.describe('both runs are listed')).toEqual([first.run_id, res.json.run_id].sort());
    expect(texts(await readState(agent, thread)), 'the new run completed').toContain('echo: interrupting');
  });

  test('the interrupted run ends with status interrupted', { tag: '@MULTITASK-INTERRUPT-STATUS' }, async ({ agent, time }) => {
    const thread = await newThread(agent);
    const first = await longRun(agent, time, thread);
    const res = await agent.post<Run>(`/threads/${thread}/runs`, { assistant_id: 'agent', input: {}, multitask_strategy: 'interrupt' });
    precondition(res, 'create the interrupting run');
    // A run interrupt did not stop is KEEPS' finding: this rule judges the status of one it stopped.
    await expectEnded(agent, time, thread, first.run_id, 'interrupt was accepted', ['MULTITASK-INTERRUPT-KEEPS']);
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

/**
 * Whether the run in progress was stopped by a later run: deleted (its lookup fails), or ended without
 * running to its end. In real time the target gets a moment, well within the run's hold, to stop it.
 */
async function stopped(agent: ApiClient, time: Time, thread: string, runId: string): Promise<boolean> {
  const read = () => agent.get<Run>(`/threads/${thread}/runs/${runId}`);
  const found = (res: ApiResponse<Run>) => res.status >= 200 && res.status < 300;
  const ended = (res: ApiResponse<Run>) => !found(res) || !IN_PROGRESS.includes(res.json?.status ?? '');
  const last = time.virtual ? await read() : (await time.poll(read, ended, { deadline: time.hold / 4, first: 20 * time.scale })).value;
  return ended(last) && !(found(last) && last.json.status === 'success');
}

/**
 * A strategy sent through `path` on a thread whose run is in progress, and whether it was taken for
 * what it is: reject refuses, rollback and interrupt are accepted and stop the run in progress.
 */
async function whileInProgress(agent: ApiClient, time: Time, thread: string, path: string, body: Record<string, unknown>) {
  const first = await longRun(agent, time, thread);
  const { res } = await whileBusy(agent, time, `/threads/${thread}/${path}`, body);
  const strategy = body.multitask_strategy ?? body.multitaskStrategy;
  if (strategy === 'reject') return { res, taken: res.status >= 400 && res.status < 500 };
  return { res, taken: res.status >= 200 && res.status < 300 && (await stopped(agent, time, thread, first.run_id)) };
}

/**
 * The rule that judges each strategy taken for what it is while a run is in progress, and the paths
 * its tests send it through (§3: reject refuses with 409, rollback deletes the run, interrupt keeps it).
 */
const TAKEN_AS_ITSELF: Record<string, { rule: string; paths: string[] }> = {
  reject: { rule: 'MULTITASK-REJECT-409', paths: ['runs', 'runs/wait'] },
  rollback: { rule: 'MULTITASK-ROLLBACK-DELETES', paths: ['runs'] },
  interrupt: { rule: 'MULTITASK-INTERRUPT-KEEPS', paths: ['runs'] },
};

// On an idle thread every strategy just creates a run, as does a target that ignores them: only a
// run in progress shows each one taken for what it is. Each operation that takes the create-run
// body takes the strategy (§4.5). A strategy not taken so is the finding of the rule about that
// strategy where that rule's test sends the same request, or where create run does not take it either
// (the strategy is not honoured at all); only an operation that ignores a strategy create run takes
// fails this rule.
test.describe('multitask_strategy accepts reject, rollback and interrupt', { tag: '@MULTITASK-STRATEGIES' }, () => {
  for (const [operation, path] of [
    ['create run', 'runs'],
    ['stream run', 'runs/stream'],
    ['wait run', 'runs/wait'],
  ] as const) {
    test(operation, async ({ agent, time }) => {
      for (const [strategy, { rule, paths }] of Object.entries(TAKEN_AS_ITSELF)) {
        const thread = await newThread(agent);
        const body = { assistant_id: 'agent', input: {}, multitask_strategy: strategy };
        const idle = await agent.post<Run>(`/threads/${thread}/${path}`, body);
        expectStatus(idle, '2xx');
        if (path === 'runs') await join(agent, thread, idle.json.run_id);
        const { res, taken } = await whileInProgress(agent, time, thread, path, body);
        if (taken) continue;
        if (paths.includes(path) || !(await whileInProgress(agent, time, await newThread(agent), 'runs', body)).taken) {
          ruleNotJudged(
            'MULTITASK-STRATEGIES',
            `precondition failed: ${strategy} was not taken for what it is while a run was in progress: ${res.describe()}`,
            [rule],
          );
          continue;
        }
        expect(taken, res.describe(`${strategy}, which create run takes, is taken by ${operation} while a run is in progress`)).toBe(true);
      }
    });
  }
});

// The field is shown read where a strategy sent in it is taken for what it is (reject refused, then
// interrupt stopping the run in progress). A target that takes no strategy shows no field name: the
// strategies' own rules judge that. One that takes them from the SDK's camel-case spelling instead
// reads another field than the wire's.
test('the strategy travels as the body field multitask_strategy', { tag: '@MULTITASK-WIRE-NAME' }, async ({ agent, time }) => {
  const takes = async (field: string) => {
    const thread = await newThread(agent);
    const reject = await whileInProgress(agent, time, thread, 'runs', { assistant_id: 'agent', input: {}, [field]: 'reject' });
    if (!reject.taken) return { ...reject, rule: 'MULTITASK-REJECT-409' };
    const interrupt = await whileInProgress(agent, time, await newThread(agent), 'runs', { assistant_id: 'agent', input: {}, [field]: 'interrupt' });
    return { ...interrupt, rule: 'MULTITASK-INTERRUPT-KEEPS' };
  };
  const wire = await takes('multitask_strategy');
  if (wire.taken) return;
  if (!(await takes('multitaskStrategy')).taken) {
    skipForPrecondition(`precondition failed: no strategy is taken for what it is, in either spelling: ${wire.res.describe()}`, [wire.rule]);
  }
  expect(wire.taken, wire.res.describe('the strategy is taken from multitask_strategy, as it is from multitaskStrategy')).toBe(true);
});
