// Threads broken where runs and supersteps meet them: status and config after runs, what creation
// answers and takes, history and search defaults.
import type { Mutation } from '../broken-target.ts';
import { calls, isRecord, jsonError, object } from './support.ts';

const WANTED = 'x-apc-front-wanted-status';

/** Sources of the checkpoints a run writes (LangGraph's), as opposed to supersteps' `update`. */
const RUN_SOURCES = ['input', 'loop'];

/** A thread of `status` reads idle wherever threads are answered and searched (a search for either status finds what reads so). */
function readsIdle(status: 'interrupted' | 'error', description: string): Mutation {
  return {
    breaks: ['THREAD-STATUS-AFTER-RUN'],
    description: `${description} (wherever threads are answered and searched)`,
    // The status searched for travels to the response in a header of the front's own; the target ignores it.
    request: (req) => {
      const body = req.body;
      if (!calls(req, 'searchThreads') || !isRecord(body) || !['idle', status].includes(String(body.status))) return req;
      const { status: wanted, ...rest } = body;
      return { ...req, headers: { ...req.headers, [WANTED]: String(wanted) }, body: rest };
    },
    response: (res, req) => {
      if (!calls(req, 'createThread', 'getThread', 'copyThread', 'searchThreads') || res.status >= 300) return res;
      const seen = (t: unknown) => (isRecord(t) && t.status === status ? { ...t, status: 'idle' } : t);
      if (!Array.isArray(res.body)) return { ...res, body: seen(res.body) };
      const wanted = req.headers[WANTED];
      return { ...res, body: res.body.map(seen).filter((t) => wanted === undefined || object(t).status === wanted) };
    },
  };
}

export const THREAD_LIFECYCLE_MUTATIONS: Record<string, Mutation> = {
  'interrupted-thread-reads-idle': readsIdle('interrupted', 'a thread whose last run stopped before a due node reads idle, not interrupted'),
  'failed-thread-reads-idle': readsIdle('error', 'a thread whose last run failed reads idle, not error'),
  'thread-configurable-string': {
    breaks: ['THREAD-CONFIG-CONFIGURABLE'],
    description: "a thread's config.configurable is answered as a JSON string",
    response: (res, req) => {
      const config = object(object(res.body).config);
      if (!calls(req, 'getThread') || res.status !== 200 || !('configurable' in config)) return res;
      return { ...res, body: { ...object(res.body), config: { ...config, configurable: JSON.stringify(config.configurable) } } };
    },
  },
  'superstep-thread-answer-without-values': {
    breaks: ['THREAD-CREATE-VALUES-METADATA'],
    description: 'a thread created with supersteps is answered without its values',
    response: (res, req) => {
      if (!calls(req, 'createThread') || res.status >= 300 || !Array.isArray(object(req.body).supersteps)) return res;
      const { values: _values, ...thread } = object(res.body);
      return { ...res, body: thread };
    },
  },
  'supersteps-must-start-with-input': {
    breaks: ['THREAD-SUPERSTEPS-SHAPE'],
    description: 'several supersteps are refused unless the first is written as __start__ or __input__',
    request: (req) => {
      const steps = object(req.body).supersteps;
      if (!calls(req, 'createThread') || !Array.isArray(steps) || steps.length < 2) return req;
      const first = (object(steps[0]).updates as unknown[] | undefined)?.[0];
      return ['__start__', '__input__'].includes(String(object(first).as_node)) ? req : jsonError(422, 'the first superstep must be the graph input');
    },
  },
  'history-fractional-limit-truncated': {
    breaks: ['THREAD-HISTORY-INVALID'],
    description: 'a fractional history limit is truncated to an integer instead of refused',
    request: (req) => {
      const limit = object(req.body).limit;
      return calls(req, 'getThreadHistory') && typeof limit === 'number' && !Number.isInteger(limit) && limit >= 1
        ? { ...req, body: { ...object(req.body), limit: Math.floor(limit) } }
        : req;
    },
  },
  'thread-search-default-limit-20': {
    breaks: ['THREAD-SEARCH-DEFAULTS'],
    description: 'a thread search without limit answers up to 20 threads',
    request: (req) => (calls(req, 'searchThreads') && isRecord(req.body) && !('limit' in req.body) ? { ...req, body: { ...req.body, limit: 20 } } : req),
  },
  'run-writes-final-checkpoint-only': {
    breaks: ['RUN-WRITES-THREAD-HISTORY'],
    description: "a run writes only its final checkpoint: the history holds none of the run's earlier ones",
    response: (res, req) => {
      if (!calls(req, 'getThreadHistory') || !Array.isArray(res.body)) return res;
      const fromRun = (s: unknown) => RUN_SOURCES.includes(String(object(object(s).metadata).source));
      const newest = res.body.find(fromRun);
      return { ...res, body: res.body.filter((s) => !fromRun(s) || s === newest) };
    },
  },
};
