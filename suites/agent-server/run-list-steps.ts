// A listing of a thread's runs, GET /threads/{thread_id}/runs: a path the spec does not show (RUN-LIST,
// a SHOULD, judges it). Tests whose rules have other evidence read it only where the target serves it,
// and judge by it only what it shows of the thread.
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { servesOperation } from '../../harness/target.ts';
import type { Run } from '../../specs/types/agent-server.ts';

/** The runs of a listing that are the thread's: a listing may answer runs of other threads beside them. */
export function ofThread(runs: Run[], threadId: string): Run[] {
  return runs.filter((run) => typeof run === 'object' && run !== null && (run.thread_id ?? threadId) === threadId);
}

/** The thread's runs as its listing answers them (ofThread), where the target serves a listing and it answers an array; else none. */
export async function listedRuns(agent: ApiClient, conformanceRun: ConformanceRun, threadId: string): Promise<{ runs: Run[]; res: ApiResponse } | undefined> {
  if (!servesOperation(conformanceRun.target, 'agent-server', 'listRuns')) return undefined;
  const res = await agent.get<Run[]>(`/threads/${threadId}/runs`);
  if (res.status !== 200 || !Array.isArray(res.json)) return undefined;
  return { runs: ofThread(res.json, threadId), res };
}
