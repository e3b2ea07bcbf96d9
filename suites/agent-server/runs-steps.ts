// Steps the run suites share. Most are preconditions: when one fails, the test is skipped as
// such, so only the rule under test can fail. The expect* steps check for the calling test's rule.
import { isDeepStrictEqual } from 'node:util';
import { expect } from '@playwright/test';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { receiverUrl } from '../../harness/fixtures.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { Time } from '../../harness/time.ts';
import { precondition, preconditionArray } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { contract } from '../../specs/contract.ts';
import type { Run, Thread, ThreadState } from '../../specs/types/agent-server.ts';

export type { Run };

/** A thread of the graph `agent`, marked as this run's (tests of the create body itself post their own). */
export async function newThread(agent: ApiClient, metadata: Record<string, unknown> = {}): Promise<string> {
  const res = await agent.post<Thread>('/threads', { metadata: { graph_id: 'agent', ...agent.conformanceMark, ...metadata } });
  precondition(res, 'create a thread');
  return res.json.thread_id;
}

/**
 * A run created on the thread, as answered. The answer beyond run_id is not shown (§4.5): a thread_id
 * it leaves out is the thread it was created on.
 */
export async function startRun(agent: ApiClient, threadId: string, body: Record<string, unknown> = {}): Promise<Run> {
  const res = await agent.post<Run>(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { topic: 'hello' }, ...body });
  precondition(res, 'create a run');
  return { thread_id: threadId, ...res.json };
}

/**
 * A run that stays in progress for the target's hold (`time.hold`). Answered (as created) once
 * it has left `pending`: a real server's queue may take a moment to start it, and a run that
 * has not started is not yet the "run in progress" the multitask rules speak of.
 */
export async function longRun(
  agent: ApiClient,
  time: Time,
  threadId: string,
  input: Record<string, unknown> = {},
  body: Record<string, unknown> = {},
): Promise<Run> {
  const created = await startRun(agent, threadId, { input: { delay_ms: time.hold, ...input }, ...body });
  // Read where the target serves a read of a run (a path the spec does not show).
  if (created.status === 'pending' && !time.virtual && agent.serves('getRun')) {
    await time.poll(
      () => readRun(agent, threadId, created.run_id),
      (run) => run.status !== 'pending',
      { deadline: time.hold / 2, first: 20 * time.scale },
    );
  }
  return created;
}

/** Statuses of a run that has not ended (the contract's RunStatus `x-in-progress`). */
export const IN_PROGRESS: string[] = contract().runStatuses.inProgress;

const inProgress = (res: ApiResponse<Run>) => res.status >= 200 && res.status < 300 && IN_PROGRESS.includes(res.json?.status ?? '');

/**
 * Fails the test at once unless the run has left `pending` and `running` shortly after a later
 * run should have ended it (rollback, interrupt): a target that ignored the strategy runs it on,
 * and waiting on the later run would only wait out the earlier one. A lookup that fails counts
 * as ended (rollback deletes the run). On a virtual clock one read decides, as nothing moves
 * until told; in real time the target gets a moment, well within the run's hold, to stop it.
 * With `explainedBy`, a run still in progress is a failed precondition those rules explain.
 */
export async function expectEnded(agent: ApiClient, time: Time, threadId: string, runId: string, why: string, explainedBy?: string[]): Promise<void> {
  const read = () => agent.get<Run>(`/threads/${threadId}/runs/${runId}`);
  const polled = time.virtual ? undefined : await time.poll(read, (res) => !inProgress(res), { deadline: time.hold / 4, first: 20 * time.scale });
  const last = polled?.value ?? (await read());
  const said = last.describe(`${why}, yet the earlier run is still in progress`);
  if (explainedBy && inProgress(last)) skipForPrecondition(`precondition failed: ${said}`, explainedBy);
  expect(inProgress(last), said).toBe(false);
}

export async function join(agent: ApiClient, threadId: string, runId: string): Promise<unknown> {
  const res = await agent.get(`/threads/${threadId}/runs/${runId}/join`);
  precondition(res, 'join the run');
  return res.json;
}

/**
 * What `read` answers once `done` accepts it, else its last answer after the target's settle time. A
 * step that waited for a run to end (join, wait, a stream's close) is no proof that it has: when it
 * answers a moment early, what the run leaves (its status, the thread's values and status) is read
 * until it shows, so that only the rule of that step fails, not every rule checked after it.
 */
export async function onceShown<T>(time: Time, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return (await time.poll(read, done, { deadline: 'settle', first: 50 * time.scale })).value;
}

/**
 * The run, joined and read once it has ended. Join answering is RUN-JOIN's to judge: a run still in
 * progress after the settle time is a failed precondition RUN-JOIN explains (join answered before the
 * end), never a failure of the rule that reads the run.
 */
export async function endedRun(agent: ApiClient, time: Time, threadId: string, runId: string): Promise<Run> {
  await join(agent, threadId, runId);
  const read = await onceShown(
    time,
    () => agent.get<Run>(`/threads/${threadId}/runs/${runId}`),
    (res) => !inProgress(res),
  );
  precondition(read, 'read the run');
  if (inProgress(read)) skipForPrecondition(`precondition failed: join answered, yet the run is still in progress: ${read.describe()}`, ['RUN-JOIN']);
  return read.json;
}

/** A new thread with one completed run: see expectOnlyRun. */
export async function threadWithRun(agent: ApiClient): Promise<{ thread: string; runId: string }> {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'the one run' } });
  await join(agent, thread, run.run_id);
  return { thread, runId: run.run_id };
}

/**
 * Checks that the thread's runs are its one earlier run and no other (a refused request created
 * none): a list that must show that run cannot pass for "none created" by showing nothing.
 */
export async function expectOnlyRun(agent: ApiClient, thread: string, runId: string, what: string): Promise<void> {
  const res = await agent.get<Run[]>(`/threads/${thread}/runs`);
  const ids = preconditionArray(res, 'list the runs').map((r) => r.run_id);
  if (!ids.includes(runId)) {
    skipForPrecondition(`precondition failed: the list does not show the thread's earlier run ${runId}, so cannot show no other was made: ${res.describe()}`, [
      'RUN-LIST',
    ]);
  }
  expect(ids, res.describe(`no run was created by ${what}`)).toEqual([runId]);
}

export async function readRun(agent: ApiClient, threadId: string, runId: string): Promise<Run> {
  const res = await agent.get<Run>(`/threads/${threadId}/runs/${runId}`);
  precondition(res, 'read the run');
  return res.json;
}

/**
 * The thread's current state. Its values must agree with the thread's own `values` (§2.7:
 * the current state values): where they do not, the target contradicts itself and rules
 * checked through the state are skipped, leaving the failure to the rules `explainedBy` names
 * (by default the one that reads both after a run).
 */
export async function readState(agent: ApiClient, threadId: string, explainedBy = ['RUN-WRITES-THREAD-STATE']): Promise<ThreadState> {
  const res = await agent.get<ThreadState>(`/threads/${threadId}/state`);
  precondition(res, 'read the thread state');
  const thread = await agent.get<Thread>(`/threads/${threadId}`);
  precondition(thread, 'read the thread');
  if (!isDeepStrictEqual(thread.json.values ?? {}, res.json.values ?? {})) {
    skipForPrecondition(`precondition failed: the thread's values and its state's values differ: ${thread.describe()} / ${res.describe()}`, explainedBy);
  }
  return res.json;
}

export async function threadStatus(agent: ApiClient, threadId: string): Promise<string> {
  const res = await agent.get<Thread>(`/threads/${threadId}`);
  precondition(res, 'read the thread');
  return res.json.status;
}

/** The thread's status once its runs have ended (after join or wait): read until it is no longer busy (onceShown). */
export function statusAfterRuns(agent: ApiClient, time: Time, threadId: string): Promise<string> {
  return onceShown(
    time,
    () => threadStatus(agent, threadId),
    (status) => status !== 'busy',
  );
}

/** How the fixture graph's answer starts (`echo: <topic>`): a run's output, in a thread's state or in an answer. */
export const ECHO = 'echo: ';

/** The texts of the state's messages, in order. */
export function texts(state: Pick<ThreadState, 'values'>): string[] {
  return ((state.values.messages as { content?: unknown }[] | undefined) ?? []).map((m) => String(m.content));
}

/**
 * A webhook URL for tests that only check a URL is accepted: under the run's receiver, which
 * the target's URL policy allows, on a path no test reads.
 */
export function discardingWebhook(conformanceRun: ConformanceRun, name: string): string {
  return `${receiverUrl(conformanceRun)}/apc-discard/${name}`;
}
