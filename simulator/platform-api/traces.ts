// Trace runs and their feedback, per workspace (spec §2.5, §4.3). POST /runs lets the
// service compute trace_id and dotted_order; the batch endpoints (/runs/multipart,
// /runs/batch) take the caller's and require them consistent with the run and its parent.
// A request is applied whole or not at all (ERROR-REFUSED-UNCHANGED-PLATFORM). Plain state, no HTTP.
import { createHash } from 'node:crypto';
import { contract } from '../../specs/contract.ts';
import type { RunQuery } from '../../specs/types/platform-api.ts';
import type { Clock } from '../clock.ts';
import { conflict, notFound, unprocessable, type ValidationIssue } from '../http/errors.ts';
import type { IdGenerator } from '../ids.ts';
import { parseDottedOrder, segmentOf, toSecond } from './dotted-order.ts';
import { normalizeTime } from './timestamps.ts';

type Json = Record<string, unknown>;
type Loc = (string | number)[];

export interface Attachment {
  mimeType: string;
  data: Buffer;
}

/** One step of an ingestion request, in the order the request carries them. */
export type IngestOperation =
  | { kind: 'post'; run: Json; at: Loc }
  | { kind: 'patch'; id: string; run: Json; at: Loc }
  | { kind: 'feedback'; feedback: Json; at: Loc }
  | { kind: 'attachment'; runId: string; name: string; attachment: Attachment; at: Loc };

/**
 * Who computes trace_id and dotted_order: the service fills in what POST /runs leaves out
 * (spec §4.3); the batch endpoints require the caller's and keep them (TRACE-MULTIPART-CALLER-ORDER).
 */
type Lineage = 'service' | 'caller';

/** What a run is stored with besides its fields: its lineage and session, kept apart for lookups. */
interface RunLineage {
  id: string;
  trace_id: string;
  dotted_order: string;
  parent_run_id: string | null;
  start_time: string;
  end_time: string | null;
  session_id: string;
  session_name: string | null;
  thread_id: string | null;
  run_type?: unknown;
  reference_example_id?: unknown;
}

/**
 * A run as stored, compact so that a million fit in memory: what queries filter on as plain
 * properties, and every other field the caller sent as one JSON text (most of a run's size,
 * read only when the run is).
 */
interface StoredRun extends RunLineage {
  /** The other fields, as JSON text. */
  rest: string;
  /** Whether the run recorded an error (its status reads 'error' once it ends). */
  failed: boolean;
  attachments?: Map<string, Attachment>;
}

type RunFields = Json & RunLineage;

const KEPT_APART = [
  'id',
  'trace_id',
  'dotted_order',
  'parent_run_id',
  'start_time',
  'end_time',
  'session_id',
  'session_name',
  'thread_id',
  'run_type',
  'reference_example_id',
] as const;

/** A run's fields, stored compactly. */
function compact(fields: RunFields, attachments: Map<string, Attachment> | undefined): StoredRun {
  const rest: Json = {};
  for (const key in fields) if (!(KEPT_APART as readonly string[]).includes(key)) rest[key] = fields[key];
  const run: StoredRun = {
    id: fields.id,
    trace_id: fields.trace_id,
    dotted_order: fields.dotted_order,
    parent_run_id: fields.parent_run_id,
    start_time: fields.start_time,
    end_time: fields.end_time ?? null,
    session_id: fields.session_id,
    session_name: fields.session_name,
    thread_id: fields.thread_id,
    run_type: fields.run_type,
    reference_example_id: fields.reference_example_id,
    rest: JSON.stringify(rest),
    failed: Boolean(fields.error),
  };
  if (attachments && attachments.size > 0) run.attachments = attachments;
  return run;
}

/** A stored run's fields, whole again: a fresh object the caller may change. */
function expand(run: StoredRun): RunFields {
  const fields = JSON.parse(run.rest) as RunFields;
  for (const key of KEPT_APART) if (run[key] !== undefined) (fields as Json)[key] = run[key];
  return fields;
}

interface WorkspaceRuns {
  runs: Map<string, StoredRun>;
  /** Run ids by trace, and by session (tracing project): reads and queries look there, not at every run. */
  byTrace: Map<string, string[]>;
  bySession: Map<string, string[]>;
  feedback: Map<string, Json>;
  /** Tracing projects by name: the session a run belongs to. */
  projects: Map<string, string>;
}

/** One workspace's runs as a snapshot holds them. */
interface StoredWorkspaceRuns {
  runs: (Omit<StoredRun, 'attachments'> & { attachments: { name: string; mimeType: string; data: string }[] })[];
  feedback: Json[];
  projects: [string, string][];
}

// A run id is a UUID of any version, v7 included (TRACE-RUN-ID-UUID).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LINEAGE_KEYS = ['trace_id', 'dotted_order', 'parent_run_id'] as const;
const DEFAULT_PROJECT = 'default';

export class TraceStore {
  private readonly workspaces = new Map<string, WorkspaceRuns>();

  constructor(private readonly env: { clock: Clock; ids: IdGenerator }) {}

  /**
   * Applies a request's operations in order, all or none: every ingestion endpoint comes here (TRACE-FLOW-BASIC,
   * TRACE-FLOW-BATCH), and a malformed one ingests nothing (TRACE-BAD-INPUT, TRACE-MULTIPART-CONSISTENT).
   */
  ingest(workspaceId: string, operations: IngestOperation[], lineage: Lineage): void {
    const data = this.data(workspaceId);
    const staged = new Map<string, StoredRun>();
    const feedback = new Map<string, Json>();
    const issues: ValidationIssue[] = [];
    const lookup = (id: string) => staged.get(id) ?? data.runs.get(id);
    // Runs this request posts, kept or refused: a refused post is the reason to give for its patch.
    const posted = new Set<unknown>();
    for (const op of operations) {
      if (op.kind === 'post') {
        posted.add(typeof op.run?.id === 'string' ? op.run.id.toLowerCase() : op.run?.id);
        const run = this.post(data, op.run, op.at, lineage, lookup, issues);
        if (!run) continue;
        if (lookup(run.id)) throw conflict(`Run ${run.id} already exists`); // TRACE-DUPLICATE-409
        staged.set(run.id, run);
      } else if (op.kind === 'patch') {
        const current = lookup(op.id);
        if (!current && posted.has(op.id)) continue;
        if (!current) throw notFound(`Run ${op.id} not found: post it before patching it`);
        const patched = this.patch(current, op.run, op.at, op.id, issues);
        if (patched) staged.set(op.id, patched);
      } else if (op.kind === 'feedback') {
        const item = this.feedbackItem(op.feedback, op.at, lineage, issues);
        if (!item) continue;
        if (feedback.has(item.id as string) || data.feedback.has(item.id as string)) throw conflict(`Feedback ${String(item.id)} already exists`);
        feedback.set(item.id as string, item);
      } else {
        const target = lookup(op.runId);
        if (!target) {
          issues.push({ loc: op.at, msg: `attachment for run ${op.runId}, which this request does not post and which does not exist`, type: 'value_error' });
          continue;
        }
        const attachments = new Map(target.attachments);
        attachments.set(op.name, op.attachment);
        staged.set(op.runId, { ...target, attachments });
      }
    }
    if (issues.length > 0) throw unprocessable(`Invalid ingestion request: ${issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, issues);
    for (const run of staged.values()) store(data, run);
    for (const [id, item] of feedback) data.feedback.set(id, item);
  }

  /** Stores runs and feedback that the service itself produced (experiment uploads). */
  insert(workspaceId: string, runs: Json[], feedback: Json[]): void {
    const data = this.data(workspaceId);
    const issues: ValidationIssue[] = [];
    for (const run of runs) {
      const stored = this.post(data, run, ['run'], 'service', (id) => data.runs.get(id), issues);
      if (stored) store(data, stored);
    }
    for (const item of feedback) {
      const stored = this.feedbackItem(item, ['feedback'], 'service', issues);
      if (stored) data.feedback.set(stored.id as string, stored);
    }
    if (issues.length > 0) throw new Error(`[simulator] uploaded experiment produced invalid runs: ${JSON.stringify(issues)}`);
  }

  /** GET /runs/{run_id}: runs are persisted at once (TRACE-READ-RUN); an unknown one answers 404 (TRACE-READ-UNKNOWN-404). */
  read(workspaceId: string, runId: string): Json {
    const data = this.data(workspaceId);
    const run = data.runs.get(runId.toLowerCase());
    if (!run) throw notFound(`Run ${runId} not found`);
    return this.view(data, run);
  }

  /** The runs matching the filter, a page at a time, next null on the last (TRACE-QUERY). */
  query(workspaceId: string, query: RunQuery): { runs: Json[]; cursors: { next: string | null } } {
    const data = this.data(workspaceId);
    const lower = (list?: string[] | null) => list && new Set(list.map((s) => s.toLowerCase()));
    const ids = lower(query.id);
    const sessions = lower(query.session);
    const examples = lower(query.reference_example);
    const trace = query.trace?.toLowerCase();
    const parent = query.parent_run?.toLowerCase();
    const matching = this.candidates(data, { ids, trace, parent, sessions }).filter(
      (f) =>
        (!ids || ids.has(f.id)) &&
        (!trace || f.trace_id === trace) &&
        (!parent || f.parent_run_id === parent) &&
        (query.is_root === undefined || query.is_root === null || (f.parent_run_id === null) === query.is_root) &&
        (!sessions || sessions.has(String(f.session_id))) &&
        (!query.run_type || f.run_type === query.run_type) &&
        (!examples || examples.has(String(f.reference_example_id ?? '').toLowerCase())),
    );
    const direction = query.order === 'asc' ? 1 : -1;
    matching.sort((a, b) => direction * (compare(a.start_time, b.start_time) || compare(a.dotted_order, b.dotted_order)));
    const offset = Number(query.cursor ?? 0) || 0;
    const limit = query.limit ?? 100;
    const page = matching.slice(offset, offset + limit);
    const next = offset + limit < matching.length ? String(offset + limit) : null;
    return { runs: page.map((run) => this.view(data, run)), cursors: { next } };
  }

  /** POST /feedback: one feedback, on its own (TRACE-FEEDBACK). */
  createFeedback(workspaceId: string, body: Json): Json {
    const data = this.data(workspaceId);
    const issues: ValidationIssue[] = [];
    const item = this.feedbackItem(body, ['body'], 'service', issues);
    if (!item) throw unprocessable(`Invalid feedback: ${issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, issues);
    if (data.feedback.has(item.id as string)) throw conflict(`Feedback ${String(item.id)} already exists`);
    data.feedback.set(item.id as string, item);
    return structuredClone(item);
  }

  readFeedback(workspaceId: string, feedbackId: string): Json {
    const item = this.data(workspaceId).feedback.get(feedbackId.toLowerCase());
    if (!item) throw notFound(`Feedback ${feedbackId} not found`);
    return structuredClone(item);
  }

  listFeedback(workspaceId: string, filter: { run?: string[]; session?: string[] }): Json[] {
    const runs = filter.run && new Set(filter.run.map((r) => r.toLowerCase()));
    const sessions = filter.session && new Set(filter.session.map((s) => s.toLowerCase()));
    return [...this.data(workspaceId).feedback.values()]
      .filter((f) => (!runs || runs.has(String(f.run_id))) && (!sessions || sessions.has(String(f.session_id))))
      .map((f) => structuredClone(f));
  }

  /** A tracing project as a session, if `sessionId` names one. */
  project(workspaceId: string, sessionId: string): Json | undefined {
    return this.projects(workspaceId).find((p) => p.id === sessionId.toLowerCase());
  }

  projects(workspaceId: string, name?: string): Json[] {
    const data = this.data(workspaceId);
    return [...data.projects]
      .filter(([projectName]) => name === undefined || projectName === name)
      .map(([projectName, id]) => ({
        id,
        name: projectName,
        tenant_id: workspaceId,
        reference_dataset_id: null,
        run_count: data.bySession.get(id)?.length ?? 0,
      }));
  }

  clear(): void {
    this.workspaces.clear();
  }

  /** Runs (attachments in base64), feedback and tracing projects per workspace, as plain JSON. */
  snapshot(): Record<string, StoredWorkspaceRuns> {
    return Object.fromEntries(
      [...this.workspaces].map(([workspaceId, data]) => [
        workspaceId,
        {
          runs: [...data.runs.values()].map(({ attachments, ...run }) => ({
            ...run,
            attachments: [...(attachments ?? [])].map(([name, a]) => ({ name, mimeType: a.mimeType, data: a.data.toString('base64') })),
          })),
          feedback: structuredClone([...data.feedback.values()]),
          projects: [...data.projects],
        },
      ]),
    );
  }

  /** Puts the runs back in the order they were first stored, so that queries list them as before. */
  restore(snapshot: Record<string, StoredWorkspaceRuns>): void {
    const workspaces = Object.entries(snapshot).map(([workspaceId, stored]): [string, WorkspaceRuns] => {
      const data: WorkspaceRuns = {
        runs: new Map(),
        byTrace: new Map(),
        bySession: new Map(),
        feedback: new Map(stored.feedback.map((f) => [f.id as string, structuredClone(f)])),
        projects: new Map(stored.projects),
      };
      for (const { attachments, ...run } of stored.runs) {
        const restored: StoredRun = { ...run };
        if (attachments.length > 0)
          restored.attachments = new Map(attachments.map((a) => [a.name, { mimeType: a.mimeType, data: Buffer.from(a.data, 'base64') }]));
        store(data, restored);
      }
      return [workspaceId, data];
    });
    this.workspaces.clear();
    for (const [id, data] of workspaces) this.workspaces.set(id, data);
  }

  /** The runs a query can match, from the narrowest index its filter names; every run when it names none. */
  private candidates(data: WorkspaceRuns, filter: { ids?: Set<string> | null; trace?: string; parent?: string; sessions?: Set<string> | null }): StoredRun[] {
    const resolve = (ids: Iterable<string>) => [...ids].flatMap((id) => data.runs.get(id) ?? []);
    if (filter.ids) return resolve(filter.ids);
    const trace = filter.trace ?? (filter.parent ? data.runs.get(filter.parent)?.trace_id : undefined);
    if (trace) return resolve(data.byTrace.get(trace) ?? []);
    if (filter.parent) return [];
    if (filter.sessions) return [...filter.sessions].flatMap((session) => resolve(data.bySession.get(session) ?? []));
    return [...data.runs.values()];
  }

  /** Each workspace's runs and feedback apart: another workspace finds none of them (AUTH-PLATFORM-WORKSPACE-ISOLATION). */
  private data(workspaceId: string): WorkspaceRuns {
    let data = this.workspaces.get(workspaceId);
    if (!data)
      this.workspaces.set(workspaceId, (data = { runs: new Map(), byTrace: new Map(), bySession: new Map(), feedback: new Map(), projects: new Map() }));
    return data;
  }

  private post(
    data: WorkspaceRuns,
    body: Json,
    at: Loc,
    lineage: Lineage,
    lookup: (id: string) => StoredRun | undefined,
    issues: ValidationIssue[],
  ): StoredRun | undefined {
    const before = issues.length;
    const issue = (field: string | undefined, msg: string, type = 'value_error') => issues.push({ loc: field ? [...at, field] : at, msg, type });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      issue(undefined, 'a run is a JSON object', 'model_type');
      return undefined;
    }
    const id = typeof body.id === 'string' && UUID.test(body.id) ? body.id.toLowerCase() : undefined;
    if (!id) issue('id', body.id === undefined ? 'a run needs its id, a UUID' : 'id must be a UUID', body.id === undefined ? 'missing' : 'uuid_parsing');
    const times = this.times(body, at, issues);
    for (const key of ['parent_run_id', 'trace_id'] as const) {
      const value = body[key];
      if (value !== undefined && value !== null && !(typeof value === 'string' && UUID.test(value))) issue(key, `${key} must be a UUID`, 'uuid_parsing');
    }
    if (body.dotted_order !== undefined && body.dotted_order !== null && typeof body.dotted_order !== 'string')
      issue('dotted_order', 'dotted_order must be a string', 'string_type');
    if (body.extra !== undefined && body.extra !== null && (typeof body.extra !== 'object' || Array.isArray(body.extra)))
      issue('extra', 'extra must be an object', 'dict_type');
    if (issues.length > before || !id) return undefined;

    const parentId = typeof body.parent_run_id === 'string' ? body.parent_run_id.toLowerCase() : null;
    const traceId = typeof body.trace_id === 'string' ? body.trace_id.toLowerCase() : undefined;
    const dotted = typeof body.dotted_order === 'string' ? body.dotted_order : undefined;
    const computed =
      lineage === 'service' && dotted === undefined
        ? this.computeLineage(id, parentId, traceId, times.start ?? normalizeTime(this.env.clock.iso())!, lookup, issue)
        : this.checkLineage({ id, parentId, traceId, dotted, start: times.start, requireTrace: lineage === 'caller' }, lookup, issue);
    if (!computed) return undefined;

    const { child_runs: _children, session_id: sessionId, session_name: sessionName, ...rest } = body;
    const session = this.session(data, sessionId, sessionName);
    const fields = {
      ...rest,
      id,
      ...computed,
      end_time: times.end ?? null,
      session_id: session.id,
      session_name: session.name,
    };
    return compact({ ...fields, thread_id: threadIdOf(fields) }, undefined);
  }

  /**
   * POST /runs without trace_id and dotted_order: the service derives them from the parent (TRACE-CREATE-GENERATES-ORDER):
   * the root's id (TRACE-TRACE-ID), the parent's dotted_order and this run's segment (TRACE-DOTTED-ORDER-CHAIN).
   */
  private computeLineage(
    id: string,
    parentId: string | null,
    traceId: string | undefined,
    start: string,
    lookup: (id: string) => StoredRun | undefined,
    issue: (field: string, msg: string) => void,
  ) {
    const parent = parentId ? lookup(parentId) : undefined;
    if (parentId && !parent) {
      issue('parent_run_id', `parent run ${parentId} not found: post the parent first, or send trace_id and dotted_order`);
      return undefined;
    }
    const trace = parent?.trace_id ?? id;
    if (traceId && traceId !== trace) {
      issue('trace_id', `trace_id must be the id of the trace's root run, ${trace}`);
      return undefined;
    }
    const own = segmentOf(start, id);
    return { trace_id: trace, dotted_order: parent ? `${parent.dotted_order}.${own}` : own, parent_run_id: parentId, start_time: start };
  }

  /**
   * The caller's trace_id and dotted_order must describe this run under its parent (spec §2.5): the root's id as
   * trace_id (TRACE-TRACE-ID), the parent's segments then its own (TRACE-DOTTED-ORDER-CHAIN, TRACE-MULTIPART-CONSISTENT).
   */
  private checkLineage(
    run: { id: string; parentId: string | null; traceId?: string; dotted?: string; start?: string; requireTrace: boolean },
    lookup: (id: string) => StoredRun | undefined,
    issue: (field: string, msg: string) => void,
  ) {
    const { id, parentId, traceId, dotted, start } = run;
    const missing = [...(dotted === undefined ? ['dotted_order'] : []), ...(traceId === undefined && run.requireTrace ? ['trace_id'] : [])];
    for (const field of missing) issue(field, `${field} is required: on the batch endpoints the caller computes it (spec §4.3)`);
    if (missing.length > 0 || dotted === undefined) return undefined;
    const segments = parseDottedOrder(dotted);
    if (typeof segments === 'string') {
      issue('dotted_order', segments);
      return undefined;
    }
    const own = segments[segments.length - 1];
    const trace = traceId ?? segments[0].runId;
    const problems: [string, string][] = [];
    if (own.runId !== id) problems.push(['dotted_order', `the last segment must carry this run's id ${id}, not ${own.runId}`]);
    if (segments[0].runId !== trace)
      problems.push(['trace_id', `trace_id ${trace} must be the id in the first (root) segment of dotted_order, ${segments[0].runId}`]);
    const parentInOrder = segments.length > 1 ? segments[segments.length - 2].runId : null;
    if (parentId !== null && parentId !== parentInOrder) {
      problems.push([
        'parent_run_id',
        parentInOrder
          ? `parent_run_id must be the id in the segment before the run's own, ${parentInOrder}`
          : "a run with a parent has its parent's segment before its own in dotted_order",
      ]);
    }
    if (start && toSecond(start) !== own.second)
      problems.push(['dotted_order', `the last segment's timestamp ${own.second} must be the run's start_time ${start}`]);
    const parent = parentInOrder ? lookup(parentInOrder) : undefined;
    if (parent && dotted !== `${parent.dotted_order}.${dotted.split('.').pop()}`) {
      problems.push(['dotted_order', `must extend the parent's dotted_order ${parent.dotted_order} by one segment`]);
    }
    for (const [field, msg] of problems) issue(field, msg);
    if (problems.length > 0) return undefined;
    return { trace_id: trace, dotted_order: dotted, parent_run_id: parentInOrder, start_time: start ?? normalizeTime(own.second)! };
  }

  /** An update, e.g. outputs (TRACE-UPDATE); the lineage it was created with stays. */
  private patch(current: StoredRun, body: Json, at: Loc, id: string, issues: ValidationIssue[]): StoredRun | undefined {
    const before = issues.length;
    const issue = (field: string, msg: string, type = 'value_error') => issues.push({ loc: [...at, field], msg, type });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      issues.push({ loc: at, msg: 'a run update is a JSON object', type: 'model_type' });
      return undefined;
    }
    if (body.id !== undefined && String(body.id).toLowerCase() !== id) issue('id', `id ${String(body.id)} differs from the run being updated, ${id}`);
    for (const key of LINEAGE_KEYS) {
      const value = body[key];
      if (value === undefined || (key === 'parent_run_id' && value === null && current.parent_run_id === null)) continue;
      if (typeof value !== 'string' || value.toLowerCase() !== String(current[key]).toLowerCase())
        issue(key, `${key} cannot change after the run was created (it is ${String(current[key])})`);
    }
    const times = this.times(body, at, issues);
    if (times.start && toSecond(times.start) !== toSecond(current.start_time))
      issue('start_time', `start_time cannot move to another second once the run's dotted_order is set (it is ${current.start_time})`);
    if (body.extra !== undefined && body.extra !== null && (typeof body.extra !== 'object' || Array.isArray(body.extra)))
      issue('extra', 'extra must be an object', 'dict_type');
    if (issues.length > before) return undefined;

    const {
      id: _id,
      child_runs: _children,
      session_id: _sid,
      session_name: _sname,
      start_time: _start,
      trace_id: _t,
      dotted_order: _d,
      parent_run_id: _p,
      ...changes
    } = body;
    const before_ = expand(current);
    const fields: RunFields = { ...before_, ...changes, extra: mergeExtra(before_.extra, body.extra) };
    if (times.end !== undefined) fields.end_time = times.end;
    return compact({ ...fields, thread_id: threadIdOf(fields) }, current.attachments);
  }

  /** start_time and end_time as epoch milliseconds or ISO 8601 (TRACE-TIME-FORMATS). */
  private times(body: Json, at: Loc, issues: ValidationIssue[]): { start?: string; end?: string | null } {
    const out: { start?: string; end?: string | null } = {};
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

  private feedbackItem(body: Json, at: Loc, lineage: Lineage, issues: ValidationIssue[]): Json | undefined {
    const before = issues.length;
    for (const v of contract().validateSchema('platform-api', 'Feedback', body)) {
      issues.push({ loc: [...at, ...v.at.split('/').filter(Boolean)], msg: v.message, type: 'value_error' });
    }
    if (issues.length > before) return undefined;
    for (const key of ['id', 'run_id', 'trace_id'] as const) {
      const value = body[key];
      if (value !== undefined && value !== null && !(typeof value === 'string' && UUID.test(value)))
        issues.push({ loc: [...at, key], msg: `${key} must be a UUID`, type: 'uuid_parsing' });
    }
    // A feedback part of a batch names the trace it belongs to (LangSmith API reference, api.smith.langchain.com/redoc).
    if (lineage === 'caller' && typeof body.run_id === 'string' && body.trace_id === undefined) {
      issues.push({ loc: [...at, 'trace_id'], msg: 'feedback sent with a batch must carry the trace_id of its run', type: 'missing' });
    }
    if (issues.length > before) return undefined;
    const now = this.env.clock.iso();
    const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : (value ?? null));
    return {
      ...body,
      id: lower(body.id) ?? this.env.ids.uuid(),
      run_id: lower(body.run_id),
      trace_id: lower(body.trace_id),
      created_at: body.created_at ?? now,
      modified_at: body.modified_at ?? now,
    };
  }

  private session(data: WorkspaceRuns, sessionId: unknown, sessionName: unknown): { id: string; name: string | null } {
    if (typeof sessionId === 'string' && sessionId !== '') {
      const id = sessionId.toLowerCase();
      return { id, name: [...data.projects].find(([, p]) => p === id)?.[0] ?? null };
    }
    const name = typeof sessionName === 'string' && sessionName !== '' ? sessionName : DEFAULT_PROJECT;
    let id = data.projects.get(name);
    if (!id) data.projects.set(name, (id = this.env.ids.uuid()));
    return { id, name };
  }

  /** A run as read: the fields it was sent with and the service's own (TRACE-OTHER-FIELDS). */
  private view(data: WorkspaceRuns, run: StoredRun): Json {
    const ancestors = run.dotted_order
      .split('.')
      .slice(0, -1)
      .map((s) => s.slice(-36).toLowerCase());
    const below = `${run.dotted_order}.`;
    const descendants = (data.byTrace.get(run.trace_id) ?? []).flatMap((id) => data.runs.get(id) ?? []).filter((r) => r.dotted_order.startsWith(below));
    const attachments = Object.fromEntries(
      [...(run.attachments ?? [])].map(([name, a]) => [
        name,
        {
          mime_type: a.mimeType,
          // The bytes travel in the URL itself, so nothing of an attachment is lost.
          presigned_url: `data:${a.mimeType};base64,${a.data.toString('base64')}`,
          sha256: createHash('sha256').update(a.data).digest('hex'),
        },
      ]),
    );
    return {
      ...expand(run),
      status: run.end_time ? (run.failed ? 'error' : 'success') : 'pending',
      parent_run_ids: ancestors,
      direct_child_run_ids: descendants.filter((r) => r.parent_run_id === run.id).map((r) => r.id),
      child_run_ids: descendants.map((r) => r.id),
      attachments,
    };
  }
}

/** Keeps a run, indexing it by trace and session the first time its id is stored. */
function store(data: WorkspaceRuns, run: StoredRun): void {
  if (!data.runs.has(run.id)) {
    for (const [index, key] of [
      [data.byTrace, run.trace_id],
      [data.bySession, run.session_id],
    ] as const) {
      const ids = index.get(key);
      if (ids) ids.push(run.id);
      else index.set(key, [run.id]);
    }
  }
  data.runs.set(run.id, run);
}

/** Orders ISO times and dotted orders (both compare as plain strings). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * thread_id: top level, or in extra.metadata under the keys the platform reads for threads (langsmith JS client,
 * langsmith-sdk js/src/run_trees.ts), kept on parents and children alike (TRACE-THREAD-ID).
 */
function threadIdOf(fields: Json): string | null {
  if (typeof fields.thread_id === 'string') return fields.thread_id;
  const metadata = ((fields.extra as Json | undefined)?.metadata ?? {}) as Json;
  for (const key of ['thread_id', 'session_id', 'conversation_id']) if (typeof metadata[key] === 'string') return metadata[key] as string;
  return null;
}

function mergeExtra(current: unknown, update: unknown): unknown {
  if (update === undefined || update === null) return current;
  const before = (current ?? {}) as Json;
  const after = update as Json;
  const metadata = { ...((before.metadata ?? {}) as Json), ...((after.metadata ?? {}) as Json) };
  return { ...before, ...after, metadata };
}
