// Multitask strategies broken at the agent server: what reject, interrupt, enqueue and an unknown
// strategy do to the run in progress and to the new one.
import { contract } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, json, jsonError, object, param } from './support.ts';

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

/**
 * Notes, on an accepted rollback, the runs it ended (those the thread had in progress) as rolled back,
 * with each run's creation answer (memory `rolled-back:<run>`), and tracks the runs in progress.
 */
function noteRolledBack(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): void {
  const run = object(res.body);
  if (calls(req, 'createRun') && res.status < 300) memory.set(`run:${String(run.run_id)}`, run);
  if (calls(req, ...CREATES) && strategy(req) === 'rollback' && res.status < 300) {
    for (const id of (memory.get(`busy:${param(req, 'thread_id')}`) as string[] | undefined) ?? []) memory.set(`rolled-back:${id}`, memory.get(`run:${id}`));
  }
  trackInProgress(res, req, memory);
}

/** The runs of the thread that a rollback ended, as created. */
const rolledBackOf = (thread: string, memory: Map<string, unknown>) =>
  [...memory.entries()].filter(([key, run]) => key.startsWith('rolled-back:') && object(run).thread_id === thread).map(([, run]) => object(run));

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
    // Every test of these rules makes a reject request on a thread with a run in progress and judges its refusal or what it created.
    breaks: ['MULTITASK-REJECT-409', 'MULTITASK-REJECT-NOT-CREATED', 'STREAM-ERRORS-BEFORE-STREAM'],
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
    breaks: ['MULTITASK-REJECT-409', 'MULTITASK-REJECT-NOT-CREATED', 'STREAM-ERRORS-BEFORE-STREAM'],
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
  'rolled-back-run-still-found': {
    breaks: ['MULTITASK-ROLLBACK-LOOKUP-FAILS', 'MULTITASK-ROLLBACK-LOOKUP-404'],
    description: 'a run deleted by rollback is no longer listed, but its lookup still answers it, interrupted',
    response: (res, req, memory) => {
      noteRolledBack(res, req, memory);
      const deleted = memory.get(`rolled-back:${param(req, 'run_id')}`);
      return calls(req, 'getRun') && res.status === 404 && deleted ? json(200, { ...object(deleted), status: 'interrupted' }) : res;
    },
  },
  'rolled-back-run-relisted': {
    breaks: ['MULTITASK-ROLLBACK-NO-RESTART'],
    description: "a run deleted by rollback is listed again, pending, from the thread's second listing after the rollback on (it was restarted)",
    // memory: `listed:<thread>` counts the listings of a thread that had a run rolled back.
    response: (res, req, memory) => {
      noteRolledBack(res, req, memory);
      const thread = param(req, 'thread_id') ?? '';
      const deleted = rolledBackOf(thread, memory);
      if (!calls(req, 'listRuns') || res.status !== 200 || !Array.isArray(res.body) || deleted.length === 0) return res;
      const listings = ((memory.get(`listed:${thread}`) as number | undefined) ?? 0) + 1;
      memory.set(`listed:${thread}`, listings);
      return listings < 2 ? res : { ...res, body: [...res.body, ...deleted.map((run) => ({ ...run, status: 'pending' }))] };
    },
  },
  'stream-ignores-multitask-strategy': {
    breaks: ['MULTITASK-STRATEGIES', 'STREAM-ERRORS-BEFORE-STREAM'],
    description: 'POST /threads/{thread_id}/runs/stream ignores multitask_strategy (its run is queued), though create run takes it',
    request: (req) => {
      const { multitask_strategy: _, ...body } = object(req.body);
      return calls(req, 'streamRun') ? { ...req, body } : req;
    },
  },
  'multitask-read-camel-case': {
    // multitask_strategy ignored: what multitask-ignored breaks, and the field name.
    breaks: [
      'MULTITASK-INTERRUPT-KEEPS',
      'MULTITASK-INVALID',
      'MULTITASK-REJECT-409',
      'MULTITASK-REJECT-NOT-CREATED',
      'MULTITASK-ROLLBACK-DELETES',
      'MULTITASK-ROLLBACK-STATE',
      'MULTITASK-WIRE-NAME',
      'STREAM-ERRORS-BEFORE-STREAM',
      'WEBHOOK-PAYLOAD-MULTITASK-STRATEGY',
    ],
    description: "runs take their strategy from the SDK's camel-case multitaskStrategy, and ignore multitask_strategy",
    request: (req) => {
      const { multitask_strategy: _, multitaskStrategy: camel, ...body } = object(req.body);
      if (!calls(req, ...CREATES)) return req;
      return { ...req, body: camel === undefined ? body : { ...body, multitask_strategy: camel } };
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
