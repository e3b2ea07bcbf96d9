// Multitask strategies broken at the agent server: what reject, interrupt, enqueue and an unknown
// strategy do to the run in progress and to the new one.
import { contract } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, jsonError, object, param } from './support.ts';

const CREATES = ['createRun', 'streamRun', 'waitRun'];
const IN_PROGRESS: string[] = contract().runStatuses.inProgress;
const STRATEGIES = contract().enumOf('agent-server', 'RunCreate', 'multitask_strategy');
/** A header of the front's own, carrying what a request was before the front changed it; the target ignores it. */
const MARK = 'x-apc-front-mark';

/**
 * Runs each thread has in progress, as their creation answered them (a run created with a delay is still running);
 * a run leaves the set once joined. Answers only, so the front knows when reject would refuse without asking.
 */
function trackInProgress(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): void {
  const thread = param(req, 'thread_id') ?? '';
  const run = object(res.body);
  const busy = (memory.get(`busy:${thread}`) as string[] | undefined) ?? [];
  const started = calls(req, 'createRun') && res.status < 300 && IN_PROGRESS.includes(String(run.status));
  if (started) memory.set(`busy:${thread}`, [...busy, String(run.run_id)]);
  if (calls(req, 'joinRun') && res.status === 200)
    memory.set(
      `busy:${thread}`,
      busy.filter((id) => id !== param(req, 'run_id')),
    );
}

const inProgress = (req: MutableRequest, memory: Map<string, unknown>) =>
  ((memory.get(`busy:${param(req, 'thread_id')}`) as string[] | undefined) ?? []).length > 0;
const strategy = (req: MutableRequest) => object(req.body).multitask_strategy;

/** Drops the run's output (the graph's last node's messages) from values answered for a thread. */
const withoutAnswer = (values: unknown) => {
  const messages = object(values).messages;
  return Array.isArray(messages) ? { ...object(values), messages: messages.filter((m) => !String(object(m).content).startsWith('echo:')) } : values;
};

export const MULTITASK_MUTATIONS: Record<string, Mutation> = {
  'reject-as-rollback': {
    // Every test of these rules makes a reject request on a thread with a run in progress and judges its refusal.
    breaks: ['MULTITASK-REJECT-409', 'MULTITASK-STRATEGIES', 'MULTITASK-WIRE-NAME', 'STREAM-ERRORS-BEFORE-STREAM'],
    description: 'reject behaves as rollback: the run in progress is deleted and the new run created, with no 409',
    request: (req) => (calls(req, ...CREATES) && strategy(req) === 'reject' ? { ...req, body: { ...object(req.body), multitask_strategy: 'rollback' } } : req),
  },
  'interrupt-deletes-run': {
    breaks: ['MULTITASK-INTERRUPT-KEEPS'],
    description: 'interrupt behaves as rollback: the run in progress is deleted, not kept',
    request: (req) =>
      calls(req, ...CREATES) && strategy(req) === 'interrupt' ? { ...req, body: { ...object(req.body), multitask_strategy: 'rollback' } } : req,
  },
  'reject-still-queues': {
    breaks: ['MULTITASK-REJECT-NOT-CREATED'],
    description: 'a run refused under reject answers 409 but is queued all the same, and runs after the one in progress',
    request: (req, memory) =>
      calls(req, 'createRun') && strategy(req) === 'reject' && inProgress(req, memory)
        ? { ...req, headers: { ...req.headers, [MARK]: 'reject' }, body: { ...object(req.body), multitask_strategy: 'enqueue' } }
        : req,
    response: (res, req, memory) => {
      if (req.headers[MARK] === 'reject' && res.status < 300) return jsonError(409, 'Thread is already running a task');
      trackInProgress(res, req, memory);
      return res;
    },
  },
  'reject-accepted-as-enqueue': {
    // Every test of these rules makes a reject request on a thread with a run in progress: it is answered as created.
    breaks: ['MULTITASK-REJECT-409', 'MULTITASK-REJECT-NOT-CREATED', 'MULTITASK-STRATEGIES', 'MULTITASK-WIRE-NAME', 'STREAM-ERRORS-BEFORE-STREAM'],
    description: 'reject while a run is in progress creates the run all the same (200), queued behind the one in progress',
    request: (req, memory) =>
      calls(req, ...CREATES) && strategy(req) === 'reject' && inProgress(req, memory)
        ? { ...req, body: { ...object(req.body), multitask_strategy: 'enqueue' } }
        : req,
    response: (res, req, memory) => {
      trackInProgress(res, req, memory);
      return res;
    },
  },
  'reject-cancels-original': {
    breaks: ['MULTITASK-REJECT-ORIGINAL-CONTINUES'],
    description: 'a reject refusal cancels the run in progress before its last node: it reads interrupted and never answers',
    // memory: `cancelled:<run>` for the runs a refusal stopped, `cancelled-thread:<thread>` for their threads.
    response: (res, req, memory) => {
      const thread = param(req, 'thread_id') ?? '';
      if (calls(req, 'createRun') && res.status === 409 && strategy(req) === 'reject') {
        for (const run of (memory.get(`busy:${thread}`) as string[] | undefined) ?? []) memory.set(`cancelled:${run}`, true);
        memory.set(`cancelled-thread:${thread}`, true);
      }
      trackInProgress(res, req, memory);
      const body = object(res.body);
      if (res.status !== 200) return res;
      if (calls(req, 'getRun') && memory.has(`cancelled:${param(req, 'run_id')}`)) return { ...res, body: { ...body, status: 'interrupted' } };
      const cancelledThread = calls(req, 'getThread', 'getThreadState') && memory.has(`cancelled-thread:${thread}`);
      return cancelledThread ? { ...res, body: { ...body, values: withoutAnswer(body.values) } } : res;
    },
  },
  'enqueued-run-reads-running': {
    breaks: ['MULTITASK-ENQUEUE-ORDER'],
    description: 'a run created with enqueue reads running while it waits behind the run in progress',
    response: (res, req, memory) => {
      const run = object(res.body);
      if (calls(req, 'createRun') && res.status < 300 && strategy(req) === 'enqueue') memory.set(`enqueued:${String(run.run_id)}`, true);
      const waiting = calls(req, 'getRun') && run.status === 'pending' && memory.has(`enqueued:${param(req, 'run_id')}`);
      return waiting ? { ...res, body: { ...run, status: 'running' } } : res;
    },
  },
  'rollback-refused-on-idle-thread': {
    breaks: ['MULTITASK-STRATEGIES'],
    description: 'rollback is refused with 422 on a thread that has no run in progress (nothing to roll back)',
    request: (req, memory) =>
      calls(req, 'createRun') && strategy(req) === 'rollback' && !inProgress(req, memory) ? jsonError(422, 'no run in progress to roll back') : req,
    response: (res, req, memory) => {
      trackInProgress(res, req, memory);
      return res;
    },
  },
  'unknown-strategy-plain-text': {
    breaks: ['MULTITASK-INVALID'],
    description: 'an unknown multitask_strategy is refused with a plain-text 422',
    response: (res, req) => {
      const given = strategy(req);
      const unknown = typeof given === 'string' && !STRATEGIES.includes(given);
      if (!calls(req, ...CREATES) || res.status !== 422 || !unknown) return res;
      return { status: 422, headers: { 'content-type': 'text/plain' }, body: `invalid multitask_strategy: ${given}` };
    },
  },
};
