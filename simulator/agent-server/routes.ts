// The agent server's route table (spec §4.5): one handler per operation of
// specs/openapi/agent-server.yaml, which gives each its method, path (thread-scoped runs under
// /threads/) and request schema. No route asks for credentials.
import { contract, pathOf } from '../../specs/contract.ts';
import type { operations } from '../../specs/types/agent-server.ts';
import { compileTable, type Request, type Route } from '../http/router.ts';
import type { AgentServer } from './agent-server.ts';
import { view, type RunRecord } from './runs.ts';
import { modesOf, streamRun, waitForResult } from './stream.ts';

/**
 * The version the simulator answers as (VERSION-AGENT-SERVER-INFO): it implements every feature of §9
 * (VERSION-WEBHOOK-HEADERS-0-5-36, VERSION-DISABLE-WEBHOOKS-0-2-78).
 */
const SERVER_INFO = { version: '0.10.0', context: 'simulator', flags: { assistants: true, crons: true, langsmith: false } };

const GET_RUN = contract().operation('agent-server', 'getRun');
const JOIN_RUN_STREAM = contract().operation('agent-server', 'joinRunStream');
const ids = (run: RunRecord) => ({ thread_id: run.thread_id, run_id: run.run_id });

/**
 * Where a run lives: the SDK reads it to learn the run and thread ids (langgraph-api api/runs.py; RUN-CONTENT-LOCATION).
 * A stateless run's /runs/{run_id} is the reference's, and no operation of the contract.
 */
const location = (run: RunRecord) => ({ 'content-location': run.temporary ? `/runs/${run.run_id}` : pathOf(GET_RUN, ids(run)) });

export function agentServerRoutes(server: AgentServer): Route[] {
  const { threads, runs, assistants, crons } = server;
  // STREAM-RUN, STREAM-STATELESS: the run is created first, so a refusal is a plain JSON answer (STREAM-ERRORS-BEFORE-STREAM).
  const stream = (run: RunRecord, req: Request) => {
    // Location lets the official SDK reconnect to the join stream with Last-Event-ID.
    const headers: Record<string, string> = location(run);
    if (!run.temporary) headers.location = pathOf(JOIN_RUN_STREAM, ids(run));
    return streamRun(run, modesOf(run), headers, lastEventId(req));
  };
  // Join and wait answer once the run has finished (RUN-JOIN, RUN-WAIT, RUN-WAIT-STATELESS).
  const wait = async (run: RunRecord) => ({ body: await waitForResult(runs, run), headers: location(run) });

  // No route is wrapped in withAuth: the agent server asks for no credentials (AUTH-AGENT-SERVER).
  return compileTable<operations>('agent-server', {
    getServerInfo: () => ({ body: SERVER_INFO }),
    /** SERVER-OK. */
    getOk: () => ({ body: { ok: true } }),
    createThread: (req) => ({ body: threads.create({ metadata: req.body?.metadata, supersteps: req.body?.supersteps }) }),
    searchThreads: (req) => ({ body: threads.search(req.body ?? {}) }),
    countThreads: (req) => ({ body: threads.count(req.body ?? {}) }),
    getThread: (req) => ({ body: threads.get(req.params.thread_id) }),
    /** THREAD-DELETE: the thread goes with its runs and crons. */
    deleteThread: (req) => {
      server.deleteThread(req.params.thread_id);
      return { status: 204 };
    },
    updateThread: (req) => ({ body: threads.update(req.params.thread_id, req.body ?? {}) }),
    copyThread: (req) => ({ body: threads.copy(req.params.thread_id) }),
    getThreadState: (req) => ({ body: threads.state(req.params.thread_id) }),
    getThreadStateAtCheckpoint: (req) => ({ body: threads.state(req.params.thread_id, req.params.checkpoint_id) }),
    getThreadHistory: (req) => ({ body: threads.history(req.params.thread_id, { limit: req.body?.limit, before: before(req.body?.before) }) }),

    createRun: (req) => {
      const run = runs.create(req.params.thread_id, req.body);
      return { body: view(run), headers: location(run) };
    },
    listRuns: (req) => ({
      body: runs.list(req.params.thread_id, {
        limit: int(req.query.get('limit')),
        offset: int(req.query.get('offset')),
        status: req.query.get('status') ?? undefined,
      }),
    }),
    // The service's path for one run (RUN-GET-PATH).
    getRun: (req) => ({ body: view(runs.get(req.params.thread_id, req.params.run_id)) }),
    joinRun: (req) => wait(runs.get(req.params.thread_id, req.params.run_id)),
    // 202 at once; with wait, 204 once the run has ended, which a cancel does before it answers (RUN-CANCEL).
    cancelRun: (req) => {
      runs.cancel(req.params.thread_id, req.params.run_id, req.query.get('action') === 'rollback' ? 'rollback' : 'interrupt');
      const wait = req.query.get('wait');
      return { status: wait === '1' || wait === 'true' ? 204 : 202 };
    },
    /** RUN-JOIN-STREAM: the run's events from the start, or after Last-Event-ID, then as they come until it ends. */
    joinRunStream: (req) => stream(runs.get(req.params.thread_id, req.params.run_id), req),
    streamRun: (req) => stream(runs.create(req.params.thread_id, req.body), req),
    waitRun: (req) => wait(runs.create(req.params.thread_id, req.body)),
    streamStatelessRun: (req) => stream(runs.createStateless(req.body), req),
    waitStatelessRun: (req) => wait(runs.createStateless(req.body)),

    createThreadCron: (req) => ({ body: crons.createForThread(req.params.thread_id, req.body) }),
    createCron: (req) => ({ body: crons.createStateless(req.body) }),
    searchCrons: (req) => ({ body: crons.search(req.body ?? {}) }),
    deleteCron: (req) => {
      crons.delete(req.params.cron_id);
      return { status: 204 };
    },

    createAssistant: (req) => ({ body: assistants.create(req.body) }),
    updateAssistant: (req) => ({ body: assistants.update(req.params.assistant_id, req.body ?? {}) }),
    deleteAssistant: (req) => {
      server.deleteAssistant(req.params.assistant_id, req.query.get('delete_threads') === 'true');
      return { status: 204 };
    },
    searchAssistants: (req) => ({ body: assistants.search(req.body ?? {}) }),
    getAssistant: (req) => ({ body: assistants.get(req.params.assistant_id) }),
  });
}

/**
 * What the official SDK calls that the simulator does not serve, and why (the 404's words): the long-term
 * memory store (`client.store.*`), which the spec does not show and whose semantics (namespaces, search,
 * TTL, indexing) the simulator does not have.
 */
export function agentServerUnserved(path: string): string | undefined {
  if (path === '/store' || path.startsWith('/store/')) {
    return "the simulator does not serve the store (the SDK's client.store.*: /store/items, /store/items/search, /store/namespaces), which the spec does not show";
  }
  return undefined;
}

/** `before` is a checkpoint id, or a checkpoint config as the SDK sends it. */
function before(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const configurable = (value as { configurable?: { checkpoint_id?: unknown } } | undefined)?.configurable;
  return typeof configurable?.checkpoint_id === 'string' ? configurable.checkpoint_id : undefined;
}

function int(value: string | null): number | undefined {
  return value === null ? undefined : Number(value);
}

function lastEventId(req: Request): number {
  const header = (Array.isArray(req.headers['last-event-id']) ? req.headers['last-event-id'][0] : req.headers['last-event-id'])?.trim();
  // A blank header is no header: Number('') would be 0 and skip the metadata event.
  const value = header ? Number(header) : Number.NaN;
  return Number.isInteger(value) ? value : -1;
}
