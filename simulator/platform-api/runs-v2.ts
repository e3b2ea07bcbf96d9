// The v2 run reads the current langsmith client makes in place of readRun and listRuns (client.runs.retrieve:
// GET /api/v2/runs/{id}?project_id=&selects=; client.runs.query: POST /api/v2/runs/query; langsmith JS client,
// resources/runs/runs.ts): a run answers only the fields its `selects` name (only its id without), run_type and
// status upper case; a query pages with `cursor` and answers {items, next_cursor}. What the simulator does not keep
// (tokens, costs, previews, share URLs, AI search) is refused, named, never answered empty. Plain functions, no HTTP.
import type { RunQuery } from '../../specs/types/platform-api.ts';
import { unprocessable } from '../http/errors.ts';

type Json = Record<string, unknown>;

/** Each select the simulator answers, and how it reads it off a run as the v1 view holds it. */
const SELECTS: Record<string, (run: Json) => unknown> = {
  ID: (r) => r.id,
  NAME: (r) => r.name,
  RUN_TYPE: (r) => (typeof r.run_type === 'string' ? r.run_type.toUpperCase() : r.run_type),
  STATUS: (r) => (typeof r.status === 'string' ? r.status.toUpperCase() : r.status),
  START_TIME: (r) => r.start_time,
  END_TIME: (r) => r.end_time,
  LATENCY_SECONDS: (r) =>
    typeof r.end_time === 'string' && typeof r.start_time === 'string' ? (Date.parse(r.end_time) - Date.parse(r.start_time)) / 1000 : null,
  ERROR: (r) => r.error ?? null,
  EXTRA: (r) => r.extra ?? null,
  METADATA: (r) => ((r.extra as Json | undefined)?.metadata as unknown) ?? null,
  EVENTS: (r) => r.events ?? null,
  INPUTS: (r) => r.inputs ?? null,
  OUTPUTS: (r) => r.outputs ?? null,
  PARENT_RUN_IDS: (r) => r.parent_run_ids,
  PROJECT_ID: (r) => r.session_id,
  TRACE_ID: (r) => r.trace_id,
  THREAD_ID: (r) => r.thread_id,
  DOTTED_ORDER: (r) => r.dotted_order,
  IS_ROOT: (r) => r.parent_run_id === null || r.parent_run_id === undefined,
  REFERENCE_EXAMPLE_ID: (r) => r.reference_example_id ?? null,
  TAGS: (r) => r.tags ?? [],
  ATTACHMENTS: (r) => r.attachments ?? {},
};

/** The selects as the client sends them, checked: one the simulator does not answer is refused, named. */
export function selectsOf(selects: unknown, at: (string | number)[]): string[] {
  const list = selects === undefined || selects === null ? [] : Array.isArray(selects) ? selects.map(String) : [String(selects)];
  const refused = list.filter((s) => !(s in SELECTS));
  if (refused.length > 0)
    throw unprocessable(
      `The simulator does not answer ${refused.join(', ')}: it keeps ${Object.keys(SELECTS).join(', ')}`,
      refused.map((s) => ({ loc: at, msg: `the simulator does not answer ${s}`, type: 'value_error' })),
    );
  return list;
}

/** A run as v2 answers it: its id, and the fields `selects` names, each under its lower-case name. */
export function projectRun(run: Json, selects: string[]): Json {
  const out: Json = { id: run.id };
  for (const select of selects) out[select.toLowerCase()] = SELECTS[select](run);
  return out;
}

/** What POST /api/v2/runs/query applies, by the v1 query it maps to (its own ids and names). */
const V2_QUERY = new Set([
  'project_ids',
  'ids',
  'trace_id',
  'run_type',
  'is_root',
  'has_error',
  'filter',
  'trace_filter',
  'tree_filter',
  'reference_examples',
  'min_start_time',
  'max_start_time',
  'selects',
  'limit',
  'cursor',
]);

/**
 * A v2 query as the v1 run query the store applies, with its time window (min_start_time defaults to a day before
 * `now`, max_start_time to `now`, as the service's do) and selects; a field the simulator does not apply is refused.
 */
export function v1Query(body: Json, now: number): { query: RunQuery; window: [number, number]; selects: string[] } {
  const refused = Object.keys(body).filter((key) => body[key] !== undefined && body[key] !== null && !V2_QUERY.has(key));
  if (refused.length > 0)
    throw unprocessable(
      `The simulator does not apply ${refused.join(', ')} in a v2 run query`,
      refused.map((key) => ({ loc: ['body', key], msg: `the simulator does not apply ${key} in a run query`, type: 'value_error' })),
    );
  const time = (key: string, otherwise: number) => {
    const value = body[key];
    const ms = typeof value === 'string' ? Date.parse(value) : otherwise;
    if (Number.isNaN(ms)) throw unprocessable(`${key} must be an RFC 3339 time`, [{ loc: ['body', key], msg: 'an RFC 3339 time', type: 'datetime_parsing' }]);
    return ms;
  };
  const runType = typeof body.run_type === 'string' ? body.run_type.toLowerCase() : undefined;
  const query: RunQuery = {
    session: body.project_ids as string[] | undefined,
    id: body.ids as string[] | undefined,
    trace: body.trace_id as string | undefined,
    run_type: runType,
    is_root: body.is_root as boolean | undefined,
    error: body.has_error as boolean | undefined,
    filter: body.filter as string | undefined,
    trace_filter: body.trace_filter as string | undefined,
    tree_filter: body.tree_filter as string | undefined,
    reference_example: body.reference_examples as string[] | undefined,
    limit: typeof body.limit === 'number' ? Math.min(100, body.limit) : undefined,
    cursor: body.cursor as string | undefined,
  };
  return { query, window: [time('min_start_time', now - 86_400_000), time('max_start_time', now)], selects: selectsOf(body.selects, ['body', 'selects']) };
}
