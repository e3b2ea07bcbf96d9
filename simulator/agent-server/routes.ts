// The agent server's route table (spec §4.5), one row per endpoint.
import { route, type Request, type Route } from '../http/router.ts';
import type { AgentServer } from './agent-server.ts';
import type { Superstep, ThreadSearch } from './threads.ts';

type Json = Record<string, unknown>;
const json = (req: Request): Json => (req.body ?? {}) as Json;

export function agentServerRoutes({ threads }: AgentServer): Route[] {
  return [
    route('POST', '/threads', 'createThread', (req) => {
      const body = json(req);
      return { body: threads.create({ metadata: body.metadata as Json | undefined, supersteps: body.supersteps as Superstep[] | undefined }) };
    }),
    route('POST', '/threads/search', 'searchThreads', (req) => ({ body: threads.search(json(req) as ThreadSearch) })),
    route('GET', '/threads/{thread_id}', 'getThread', (req) => ({ body: threads.get(req.params.thread_id) })),
    route('POST', '/threads/{thread_id}/copy', 'copyThread', (req) => ({ body: threads.copy(req.params.thread_id) })),
    route('GET', '/threads/{thread_id}/state', 'getThreadState', (req) => ({ body: threads.state(req.params.thread_id) })),
    route('GET', '/threads/{thread_id}/state/{checkpoint_id}', 'getThreadStateAtCheckpoint', (req) => ({
      body: threads.state(req.params.thread_id, req.params.checkpoint_id),
    })),
    route('POST', '/threads/{thread_id}/history', 'getThreadHistory', (req) => {
      const body = json(req);
      return { body: threads.history(req.params.thread_id, { limit: body.limit as number | undefined, before: before(body.before) }) };
    }),
  ];
}

/** `before` is a checkpoint id, or a checkpoint config as the SDK sends it. */
function before(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const configurable = (value as { configurable?: { checkpoint_id?: unknown } } | undefined)?.configurable;
  return typeof configurable?.checkpoint_id === 'string' ? configurable.checkpoint_id : undefined;
}
