// Steps the run suites share. Each is a precondition: when it fails, the test is skipped
// as such, so only the rule under test can fail.
import type { ApiClient } from '../client.ts';
import { precondition } from '../checks/index.ts';

/** How long a run asked to wait (`delay_ms`) stays in progress: virtual on the simulator, real elsewhere. */
export const DELAY_MS = 1500;

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

export async function newThread(agent: ApiClient, metadata: Record<string, unknown> = {}): Promise<string> {
  const res = await agent.post<{ thread_id: string }>('/threads', { metadata: { graph_id: 'agent', ...metadata } });
  precondition(res, 'create a thread');
  return res.json.thread_id;
}

export async function startRun(agent: ApiClient, threadId: string, body: Record<string, unknown> = {}): Promise<Run> {
  const res = await agent.post<Run>(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { topic: 'hello' }, ...body });
  precondition(res, 'create a run');
  return res.json;
}

/** A run that stays in progress until DELAY_MS has passed. */
export function longRun(agent: ApiClient, threadId: string, input: Record<string, unknown> = {}, body: Record<string, unknown> = {}): Promise<Run> {
  return startRun(agent, threadId, { input: { delay_ms: DELAY_MS, ...input }, ...body });
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

export async function readState(agent: ApiClient, threadId: string): Promise<State> {
  const res = await agent.get<State>(`/threads/${threadId}/state`);
  precondition(res, 'read the thread state');
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
