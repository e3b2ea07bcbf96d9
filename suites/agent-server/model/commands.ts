// One command per operation: check() says when it may run, run() acts on the target,
// asserts, then updates the model (fast-check model-based testing). Each rule the model judges
// has a property of its own (commandsFor): a failed check ends a property at once, so a property
// holds the checks of one rule only, and a rule's failure leaves the others judged.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { expect } from '@playwright/test';
import { expectArray, expectStatus, precondition, preconditionArray } from '../../../harness/checks/index.ts';
import { forRule, skipForPrecondition } from '../../../harness/checks/attribution.ts';
import type { ApiClient } from '../../../harness/client.ts';
import type { Thread, ThreadState } from '../../../specs/types/agent-server.ts';
import { statusAfterRuns } from '../runs-steps.ts';
import { TEST_KEY_SEARCH } from '../threads-steps.ts';
import type { Model, Real, ThreadModel } from './model.ts';

type Command = fc.AsyncCommand<Model, Real>;

/** The rules the model judges, a property each. */
export type ModelRule = 'THREAD-COPY-INDEPENDENT' | 'THREAD-STATUS-AFTER-RUN' | 'THREAD-SEARCH-STATUS';

/** The thread's state values, read alone (a step: THREAD-STATE's rules judge the read; whether the thread's own values agree is others'). */
async function stateValues(agent: ApiClient, threadId: string): Promise<Record<string, unknown>> {
  const res = await agent.get<ThreadState>(`/threads/${threadId}/state`);
  precondition(res, 'read the thread state');
  return res.json.values;
}

class CreateThread implements Command {
  constructor(readonly topic: string | undefined) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const supersteps = this.topic === undefined ? undefined : [{ updates: [{ values: { topic: this.topic }, as_node: 'prepare' }] }];
    const res = await r.agent.post<Thread>('/threads', { metadata: { graph_id: 'agent', apc_test: m.testKey }, ...(supersteps ? { supersteps } : {}) });
    precondition(res, 'create a thread');
    m.threads.push({ id: res.json.thread_id, values: await stateValues(r.agent, res.json.thread_id), afterRun: undefined });
  }
  toString = () => `POST /threads ${this.topic === undefined ? '{}' : `(topic ${JSON.stringify(this.topic)})`}`;
}

class CopyThread implements Command {
  constructor(
    readonly index: number,
    readonly rule: ModelRule,
  ) {}
  check = (m: Readonly<Model>) => m.threads.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const source = m.threads[this.index % m.threads.length];
    // The copy is the request THREAD-COPY-INDEPENDENT is about: a refusal fails it; for the other rules it is a step.
    const res = await r.agent.post<Thread>(`/threads/${source.id}/copy`);
    if (this.rule === 'THREAD-COPY-INDEPENDENT') await forRule(this.rule, () => expectStatus(res, '2xx'));
    else precondition(res, 'copy the thread');
    // A copy that is not a new thread, or does not start with its original's state, is another rule's failure.
    if (m.threads.some((t) => t.id === res.json.thread_id)) {
      skipForPrecondition(`precondition failed: copy answered an existing thread: ${res.describe()}`, ['THREAD-COPY-NEW']);
    }
    const values = await stateValues(r.agent, res.json.thread_id);
    if (!isDeepStrictEqual(values, source.values)) {
      skipForPrecondition(`precondition failed: the copy's state ${JSON.stringify(values)} is not its original's ${JSON.stringify(source.values)}`, [
        'THREAD-COPY-STATE',
      ]);
    }
    m.threads.push({ id: res.json.thread_id, values, afterRun: undefined });
  }
  toString = () => `POST /threads/{#${this.index}}/copy`;
}

class RunOnThread implements Command {
  constructor(
    readonly index: number,
    readonly topic: string,
    readonly fail: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.threads.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const thread = m.threads[this.index % m.threads.length];
    // A step: what a run writes is RUN-WRITES-THREAD-STATE's; the model keeps what the thread holds after it.
    const res = await r.agent.post(`/threads/${thread.id}/runs/wait`, {
      assistant_id: 'agent',
      input: { topic: this.topic, ...(this.fail ? { fail: true } : {}) },
    });
    precondition(res, 'run and wait');
    thread.values = await stateValues(r.agent, thread.id);
    thread.afterRun = this.fail ? 'error' : 'idle';
  }
  toString = () => `POST /threads/{#${this.index}}/runs/wait ${JSON.stringify({ topic: this.topic, fail: this.fail })}`;
}

class CheckState implements Command {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.threads.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const thread: ThreadModel = m.threads[this.index % m.threads.length];
    const values = await stateValues(r.agent, thread.id);
    await forRule('THREAD-COPY-INDEPENDENT', () =>
      expect(values, `thread #${this.index % m.threads.length}: the state its own last operation left`).toEqual(thread.values),
    );
  }
  toString = () => `check the state of thread #${this.index}`;
}

class CheckStatus implements Command {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.threads.some((t) => t.afterRun !== undefined);
  async run(m: Model, r: Real): Promise<void> {
    const ran = m.threads.filter((t) => t.afterRun !== undefined);
    const thread = ran[this.index % ran.length];
    // Read once no longer busy (statusAfterRuns): a wait that answered early is RUN-WAIT's failure.
    const status = await statusAfterRuns(r.agent, r.time, thread.id);
    await forRule('THREAD-STATUS-AFTER-RUN', () => expect(status, `thread ${thread.id}: status after its last run`).toBe(thread.afterRun));
  }
  toString = () => `check the status of run thread #${this.index}`;
}

class SearchByStatus implements Command {
  constructor(readonly status: 'idle' | 'error') {}
  check = (m: Readonly<Model>) => m.threads.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    // The test's threads are found by metadata: a target that loses a thread's metadata (THREAD-CREATE-METADATA
    // judges that) leaves it out of every search by the test key, whatever its status.
    const keyed = preconditionArray(
      await r.agent.post<Thread[]>('/threads/search', { metadata: { apc_test: m.testKey }, limit: 100 }),
      "search the test's threads",
      undefined,
      TEST_KEY_SEARCH,
    );
    const missing = m.threads.filter((t) => !keyed.some((s) => s.thread_id === t.id));
    if (missing.length > 0) {
      skipForPrecondition(
        `precondition failed: the search by the test key misses threads made with it: ${missing.map((t) => t.id).join(', ')}`,
        TEST_KEY_SEARCH,
      );
    }
    // The search carrying the generated status is the one the rule judges, against the statuses the
    // unfiltered search gives (other rules judge those).
    const res = await r.agent.post<Thread[]>('/threads/search', { status: this.status, metadata: { apc_test: m.testKey }, limit: 100 });
    const expected = keyed
      .filter((t) => t.status === this.status)
      .map((t) => t.thread_id)
      .sort();
    await forRule('THREAD-SEARCH-STATUS', () =>
      expect(
        expectArray(res, 'search by status')
          .map((t) => t.thread_id)
          .sort(),
        res.describe(`status ${this.status}`),
      ).toEqual(expected),
    );
  }
  toString = () => `POST /threads/search {status: ${this.status}}`;
}

const index = fc.nat({ max: 9 });
const topic = fc.constantFrom('alpha', 'beta', 'gamma');

/** The checks of each rule's property. */
const CHECKS: Record<ModelRule, fc.Arbitrary<Command>> = {
  'THREAD-COPY-INDEPENDENT': index.map((i) => new CheckState(i)),
  'THREAD-STATUS-AFTER-RUN': index.map((i) => new CheckStatus(i)),
  'THREAD-SEARCH-STATUS': fc.constantFrom('idle' as const, 'error' as const).map((s) => new SearchByStatus(s)),
};

/**
 * The commands of the property that judges `rule`: the operations, and that rule's checks alone. A check
 * weighs as much as two operations, so that the short sequences fast-check tries first check what they did.
 */
export function commandsFor(rule: ModelRule): fc.Arbitrary<Command>[] {
  return [
    fc.oneof(
      { arbitrary: fc.option(topic, { nil: undefined }).map((t): Command => new CreateThread(t)), weight: 1 },
      { arbitrary: index.map((i): Command => new CopyThread(i, rule)), weight: 1 },
      { arbitrary: fc.tuple(index, topic, fc.boolean()).map(([i, t, f]): Command => new RunOnThread(i, t, f)), weight: 1 },
      { arbitrary: CHECKS[rule], weight: 2 },
    ),
  ];
}
