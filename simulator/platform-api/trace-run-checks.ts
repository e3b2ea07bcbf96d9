// What an ingested trace run or feedback must satisfy. Their schemas in the contract (TraceRun, Feedback) state each
// field's type and form: ids are UUIDs, dotted_order is made of segments, extra is an object. The server checks JSON
// bodies against them before any handler runs; parseMultipart checks each part with schemaIssues. The checks below
// are the rules a schema cannot state, as they depend on the endpoint or on the run already stored; the lineage
// rules are in trace-run-lineage.ts.
import { contract } from '../../specs/contract.ts';
import { type ValidationIssue, violationIssues } from '../http/errors.ts';
import { toSecond } from './dotted-order.ts';
import type { LineageSource } from './trace-run-lineage.ts';
import { normalizeTime } from './timestamps.ts';

type Json = Record<string, unknown>;
export type Loc = (string | number)[];

/**
 * A multipart part's value against its schema in the contract, as the server checks JSON bodies: a run part's
 * TraceRun, a feedback part's Feedback (TRACE-BAD-INPUT; the id's form, TRACE-RUN-ID-UUID; the segments' form, TRACE-DOTTED-ORDER-SEGMENT).
 */
export function schemaIssues(schema: 'TraceRun' | 'Feedback', value: unknown, at: Loc): ValidationIssue[] {
  return violationIssues(at, contract().validateSchema('platform-api', schema, value));
}

/** A UUID as the store keys it: lower case, without the `urn:uuid:` prefix that the schema's uuid format admits. */
export function uuidKey(value: string): string {
  const lower = value.toLowerCase();
  return lower.startsWith('urn:uuid:') ? lower.slice('urn:uuid:'.length) : lower;
}

/** A batch-created run names its id; TraceRun leaves it optional for the sake of updates (TRACE-BAD-INPUT: a batch run without id). */
export function createdRunIssues(body: Json, at: Loc): ValidationIssue[] {
  return body.id === undefined ? [{ loc: [...at, 'id'], msg: 'a run needs its id, a UUID', type: 'missing' }] : [];
}

interface RunTimes {
  start?: string;
  end?: string | null;
}

/**
 * start_time and end_time as epoch milliseconds or ISO 8601 (TRACE-TIME-FORMATS), kept normalized: the schema admits
 * any string or number, and only a time is kept.
 */
export function runTimes(body: Json, at: Loc, issues: ValidationIssue[]): RunTimes {
  const out: RunTimes = {};
  for (const [key, field] of [
    ['start', 'start_time'],
    ['end', 'end_time'],
  ] as const) {
    const value = body[field];
    if (value === undefined || (value === null && key === 'end')) {
      if (value === null) out.end = null;
      continue;
    }
    const normalized = normalizeTime(value);
    if (normalized === undefined) {
      issues.push({ loc: [...at, field], msg: `${field} must be epoch milliseconds or an ISO 8601 datetime`, type: 'datetime_parsing' });
    } else {
      out[key] = normalized;
    }
  }
  return out;
}

const LINEAGE_KEYS = ['trace_id', 'dotted_order', 'parent_run_id'] as const;

/**
 * An update changes the run's fields, not which run it is (TRACE-UPDATE): not its id, not its lineage, and not its
 * start beyond the second its dotted_order segment holds.
 */
export function updateIssues(
  current: { id: string; trace_id: string; dotted_order: string; parent_run_id: string | null; start_time: string },
  body: Json,
  at: Loc,
  times: RunTimes,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string) => issues.push({ loc: [...at, field], msg, type: 'value_error' });
  if (body.id !== undefined && uuidKey(String(body.id)) !== current.id) issue('id', `id ${String(body.id)} differs from the run being updated, ${current.id}`);
  for (const key of LINEAGE_KEYS) {
    const value = body[key];
    if (value === undefined || (key === 'parent_run_id' && value === null && current.parent_run_id === null)) continue;
    if (typeof value !== 'string' || value.toLowerCase() !== String(current[key]).toLowerCase())
      issue(key, `${key} cannot change after the run was created (it is ${String(current[key])})`);
  }
  if (times.start && toSecond(times.start) !== toSecond(current.start_time))
    issue('start_time', `start_time cannot move to another second once the run's dotted_order is set (it is ${current.start_time})`);
  return issues;
}

/** A feedback part of a batch names the trace it belongs to (LangSmith API reference, api.smith.langchain.com/redoc). */
export function batchFeedbackIssues(body: Json, at: Loc, source: LineageSource): ValidationIssue[] {
  return source === 'caller' && typeof body.run_id === 'string' && body.trace_id === undefined
    ? [{ loc: [...at, 'trace_id'], msg: 'feedback sent with a batch must carry the trace_id of its run', type: 'missing' }]
    : [];
}
