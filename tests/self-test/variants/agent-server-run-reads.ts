// Conformant variants of the agent server's reads of runs, which §4.5 does not show: a listing of a
// thread's runs and the lookup of one run are the service's paths, SHOULD rules at most.
import { calls, isRecord } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

/** A run of a thread no test made, as a listing of another thread may answer it. */
const OTHER_THREADS_RUN = {
  run_id: '00000000-0000-4000-8000-0000000000a1',
  thread_id: '00000000-0000-4000-8000-0000000000b2',
  assistant_id: 'agent',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  status: 'success',
  metadata: {},
  multitask_strategy: 'reject',
};

/** A run listing that answers, after the thread's runs, a run of another thread (as @langgraph-js/pure-graph 3.3.3 lists every thread's). */
export const listsOtherThreadsRuns: NonNullable<Variant['response']> = (res, req) =>
  calls(req, 'listRuns') && res.status === 200 && Array.isArray(res.body) ? { ...res, body: [...res.body.filter(isRecord), OTHER_THREADS_RUN] } : res;

export const AGENT_SERVER_RUN_READ_VARIANTS: Record<string, Variant> = {
  'agent-server-run-list-every-thread': {
    description: "GET /threads/{thread_id}/runs answers the thread's runs and, after them, a run of another thread",
    allowedBy: "§4.5 shows no listing of runs: GET /threads/{thread_id}/runs is the service's path (RUN-LIST, a SHOULD), whatever it answers",
    response: listsOtherThreadsRuns,
  },
};
