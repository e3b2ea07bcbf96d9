// Steps the run suites share. Each is a precondition: when it fails, the test is skipped
// as such, so only the rule under test can fail.
import { isDeepStrictEqual } from 'node:util';
import type { ApiClient } from '../client.ts';
import { receiverUrl } from '../fixtures.ts';
import { runMark, type RunContext } from '../run-context.ts';
import type { Time } from '../time.ts';
import { precondition } from '../checks/index.ts';
import { skipForPrecondition } from '../checks/attribution.ts';

export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
  multitask_strategy: string;
}

export interface State {
  values: Record<string, unknown>;
  next: string[];
  checkpoint_id: string | null;
}

/** A thread of the graph `agent`, marked as this run's (tests of the create body itself post their own). */
export async function newThread(agent: ApiClient, metadata: Record<string, unknown> = {}): Promise<string> {
  const res = await agent.post<{ thread_id: string }>('/threads', { metadata: { graph_id: 'agent', ...runMark(), ...metadata } });
  precondition(res, 'create a thread');
  return res.json.thread_id;
}

export async function startRun(agent: ApiClient, threadId: string, body: Record<string, unknown> = {}): Promise<Run> {
  const res = await agent.post<Run>(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { topic: 'hello' }, ...body });
  precondition(res, 'create a run');
  return res.json;
}

/**
 * A run that stays in progress for the target's hold (`time.hold`). Answered (as created) once
 * it has left `pending`: a real server's queue may take a moment to start it, and a run that
 * has not started is not yet the "run in progress" the multitask rules speak of.
 */
export async function longRun(agent: ApiClient, time: Time, threadId: string, input: Record<string, unknown> = {}, body: Record<string, unknown> = {}): Promise<Run> {
  const created = await startRun(agent, threadId, { input: { delay_ms: time.hold, ...input }, ...body });
  if (created.status === 'pending' && !time.virtual) {
    await time.poll(() => readRun(agent, threadId, created.run_id), (run) => run.status !== 'pending', { deadline: time.hold / 2, first: 20 * time.scale });
  }
  return created;
}

export async function join(agent: ApiClient, threadId: string, runId: string): Promise<unknown> {
  const res = await agent.get(`/threads/${threadId}/runs/${runId}/join`);
  precondition(res, 'join the run');
  return res.json;
}

export async function readRun(agent: ApiClient, threadId: string, runId: string): Promise<Run> {
  const res = await agent.get<Run>(`/threads/${threadId}/runs/${runId}`);
  precondition(res, 'read the run');
  return res.json;
}

/**
 * The thread's current state. Its values must agree with the thread's own `values` (§2.7:
 * the current state values): where they do not, the target contradicts itself and rules
 * checked through the state are skipped, leaving the failure to the state and thread rules.
 */
export async function readState(agent: ApiClient, threadId: string): Promise<State> {
  const res = await agent.get<State>(`/threads/${threadId}/state`);
  precondition(res, 'read the thread state');
  const thread = await agent.get<{ values?: unknown }>(`/threads/${threadId}`);
  precondition(thread, 'read the thread');
  if (!isDeepStrictEqual(thread.json.values ?? {}, res.json.values ?? {})) {
    skipForPrecondition(`precondition failed: the thread's values and its state's values differ: ${thread.describe()} / ${res.describe()}`);
  }
  return res.json;
}

export async function threadStatus(agent: ApiClient, threadId: string): Promise<string> {
  const res = await agent.get<{ status: string }>(`/threads/${threadId}`);
  precondition(res, 'read the thread');
  return res.json.status;
}

/** The texts of the state's messages, in order. */
export function texts(state: State): string[] {
  return ((state.values.messages as { content?: unknown }[] | undefined) ?? []).map((m) => String(m.content));
}

/**
 * A webhook URL for tests that only check a URL is accepted: under the run's receiver, which
 * the target's URL policy allows, on a path no test reads.
 */
export function discardingWebhook(run: RunContext, name: string): string {
  return `${receiverUrl(run)}/apc-discard/${name}`;
}
