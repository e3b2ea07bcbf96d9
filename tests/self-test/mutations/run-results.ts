// Runs broken where their results are read: join, wait (stateful and stateless) and looking a run up.
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, jsonError, object, param, redirect } from './support.ts';

/** Remembers the runs created on threads, so a mutation can tell the target's runs from unknown ids. */
function rememberRuns(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): void {
  const run = object(res.body);
  if (calls(req, 'createRun') && res.status < 300 && typeof run.run_id === 'string') memory.set(`run:${run.run_id}`, true);
}

export const RUN_RESULT_MUTATIONS: Record<string, Mutation> = {
  'join-answers-before-the-end': {
    // Runs that take a while make an early join show: on the simulator's clock a run otherwise ends as it is created.
    breaks: ['RUN-JOIN', 'RUN-JOIN-VALUES'],
    description: 'runs on threads take 300 ms, and join answers at once with the run as it is, before it has ended',
    request: (req) => {
      if (calls(req, 'joinRun')) return redirect(req, 'getRun');
      const body = object(req.body);
      const input = object(body.input);
      return calls(req, 'createRun') && !('delay_ms' in input) ? { ...req, body: { ...body, input: { ...input, delay_ms: 300 } } } : req;
    },
  },
  'wait-answers-before-the-end': {
    breaks: ['RUN-WAIT', 'RUN-WAIT-VALUES'],
    description: 'runs waited on take 300 ms, and POST /threads/{thread_id}/runs/wait answers at once with the run as created, before it has ended',
    request: (req) => {
      if (!calls(req, 'waitRun')) return req;
      const body = object(req.body);
      const input = object(body.input);
      return redirect({ ...req, body: 'delay_ms' in input ? body : { ...body, input: { ...input, delay_ms: 300 } } }, 'createRun');
    },
  },
  'join-answers-run-summary': {
    breaks: ['RUN-JOIN-VALUES'],
    description: "join answers a summary of the run (its id and status), not the thread's values",
    response: (res, req) =>
      calls(req, 'joinRun') && res.status === 200
        ? { ...res, body: { run_id: param(req, 'run_id'), status: '__error__' in object(res.body) ? 'error' : 'success' } }
        : res,
  },
  'wait-answers-run-record': {
    // The values rule checks the same answer more closely: an answer without the result fails both.
    breaks: ['RUN-WAIT', 'RUN-WAIT-VALUES'],
    description: 'POST /threads/{thread_id}/runs/wait creates the run and answers its record, not its result',
    request: (req) => (calls(req, 'waitRun') ? redirect(req, 'createRun') : req),
  },
  'stateless-wait-answers-empty': {
    breaks: ['RUN-WAIT-STATELESS'],
    description: "POST /runs/wait answers {}: the stateless run's state is discarded before its result is read",
    response: (res, req) => (calls(req, 'waitStatelessRun') && res.status === 200 ? { ...res, body: {} } : res),
  },
  'run-lookup-after-join-only': {
    // The harness looks runs up with the service's GET (RUN-GET's path); the interrupt test looks up the run it
    // interrupted, which was never joined.
    breaks: ['RUN-LOOKUP', 'RUN-GET', 'MULTITASK-INTERRUPT-KEEPS'],
    description: 'a run can be looked up only once it has been joined: before, GET answers 404',
    request: (req, memory) => {
      const run = param(req, 'run_id');
      return calls(req, 'getRun') && memory.has(`run:${run}`) && !memory.has(`joined:${run}`) ? jsonError(404, 'Run not found') : req;
    },
    response: (res, req, memory) => {
      rememberRuns(res, req, memory);
      if (calls(req, 'joinRun') && res.status === 200) memory.set(`joined:${param(req, 'run_id')}`, true);
      return res;
    },
  },
};
