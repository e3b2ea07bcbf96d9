// The agent server's route table (spec §4.5), one row per endpoint.
import { route, type Request, type Route } from '../http/router.ts';
import type { AgentServer } from './agent-server.ts';
import type { CronCreate, CronSearch } from './crons.ts';
import { view, type CreateRun, type RunRecord } from './runs.ts';
import { modesOf, streamRun, waitForResult } from './stream.ts';
import type { Superstep, ThreadSearch } from './threads.ts';

type Json = Record<string, unknown>;

/** The version the simulator answers as: it implements every feature of §9. */
export const SERVER_INFO = { version: '0.10.0', context: 'simulator', flags: { assistants: true, crons: true, langsmith: false } };
const json = (req: Request): Json => (req.body ?? {}) as Json;

/** Where a run lives: the SDK reads it to learn the run and thread ids (platform-facts §1.5). */
const location = (run: RunRecord) => ({ 'content-location': run.temporary ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}` });

export function agentServerRoutes(server: AgentServer): Route[] {
  const { threads, runs, assistants, crons } = server;
  const stream = (run: RunRecord, req: Request) => {
    // Location lets the official SDK reconnect to the join stream with Last-Event-ID.
    const headers: Record<string, string> = location(run);
    if (!run.temporary) headers.location = `/threads/${run.thread_id}/runs/${run.run_id}/stream`;
    return streamRun(run, modesOf(run), headers, lastEventId(req));
  };
  const wait = async (run: RunRecord) => ({ body: await waitForResult(runs, run), headers: location(run) });

  return [
    route('GET', '/info', 'getServerInfo', () => ({ body: SERVER_INFO })),
    route('GET', '/ok', 'getOk', () => ({ body: { ok: true } })),
    route('POST', '/threads', 'createThread', (req) => {
      const body = json(req);
      return { body: threads.create({ metadata: body.metadata as Json | undefined, supersteps: body.supersteps as Superstep[] | undefined }) };
    }),
    route('POST', '/threads/search', 'searchThreads', (req) => ({ body: threads.search(json(req) as ThreadSearch) })),
    route('GET', '/threads/{thread_id}', 'getThread', (req) => ({ body: threads.get(req.params.thread_id) })),
    route('DELETE', '/threads/{thread_id}', 'deleteThread', (req) => {
      server.deleteThread(req.params.thread_id);
      return { status: 204 };
    }),
    route('POST', '/threads/{thread_id}/copy', 'copyThread', (req) => ({ body: threads.copy(req.params.thread_id) })),
    route('GET', '/threads/{thread_id}/state', 'getThreadState', (req) => ({ body: threads.state(req.params.thread_id) })),
    route('GET', '/threads/{thread_id}/state/{checkpoint_id}', 'getThreadStateAtCheckpoint', (req) => ({
      body: threads.state(req.params.thread_id, req.params.checkpoint_id),
    })),
    route('POST', '/threads/{thread_id}/history', 'getThreadHistory', (req) => {
      const body = json(req);
      return { body: threads.history(req.params.thread_id, { limit: body.limit as number | undefined, before: before(body.before) }) };
    }),

    route('POST', '/threads/{thread_id}/runs', 'createRun', (req) => {
      const run = runs.create(req.params.thread_id, json(req) as CreateRun);
      return { body: view(run), headers: location(run) };
    }),
    route('GET', '/threads/{thread_id}/runs', 'listRuns', (req) =>
      ({ body: runs.list(req.params.thread_id, { limit: int(req.query.get('limit')), offset: int(req.query.get('offset')), status: req.query.get('status') ?? undefined }) })),
    route('GET', '/threads/{thread_id}/runs/{run_id}', 'getRun', (req) => ({ body: view(runs.get(req.params.thread_id, req.params.run_id)) })),
    route('GET', '/threads/{thread_id}/runs/{run_id}/join', 'joinRun', (req) => wait(runs.get(req.params.thread_id, req.params.run_id))),
    route('GET', '/threads/{thread_id}/runs/{run_id}/stream', 'joinRunStream', (req) => stream(runs.get(req.params.thread_id, req.params.run_id), req)),
    route('POST', '/threads/{thread_id}/runs/stream', 'streamRun', (req) => stream(runs.create(req.params.thread_id, json(req) as CreateRun), req)),
    route('POST', '/threads/{thread_id}/runs/wait', 'waitRun', (req) => wait(runs.create(req.params.thread_id, json(req) as CreateRun))),
    route('POST', '/runs/stream', 'streamStatelessRun', (req) => stream(runs.createStateless(json(req) as CreateRun), req)),
    route('POST', '/runs/wait', 'waitStatelessRun', (req) => wait(runs.createStateless(json(req) as CreateRun))),

    route('POST', '/threads/{thread_id}/runs/crons', 'createThreadCron', (req) => ({ body: crons.createForThread(req.params.thread_id, json(req) as CronCreate) })),
    route('POST', '/runs/crons', 'createCron', (req) => ({ body: crons.createStateless(json(req) as CronCreate) })),
    route('POST', '/runs/crons/search', 'searchCrons', (req) => ({ body: crons.search(json(req) as CronSearch) })),
    route('DELETE', '/runs/crons/{cron_id}', 'deleteCron', (req) => {
      crons.delete(req.params.cron_id);
      return { status: 204 };
    }),

    route('POST', '/assistants/search', 'searchAssistants', (req) => ({ body: assistants.search(json(req)) })),
    route('GET', '/assistants/{assistant_id}', 'getAssistant', (req) => ({ body: assistants.get(req.params.assistant_id) })),
  ];
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
  const header = req.headers['last-event-id'];
  const value = Number(Array.isArray(header) ? header[0] : header);
  return Number.isInteger(value) ? value : -1;
}
