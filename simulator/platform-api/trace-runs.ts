// Trace runs and their feedback, per workspace (spec §2.5, §4.3). POST /runs lets the
// service compute trace_id and dotted_order; the batch endpoints (/runs/multipart,
// /runs/batch) take the caller's and require them consistent with the run and its parent.
// A request is applied whole or not at all. Plain state, no HTTP.
import { createHash } from 'node:crypto';
import type { RunQuery } from '../../specs/types/platform-api.ts';
import type { Clock } from '../clock.ts';
import { conflict, notFound, unprocessable, type ValidationIssue } from '../http/errors.ts';
import type { RequestViolation } from '../http/request-violations.ts';
import type { IdGenerator } from '../ids.ts';
import {
  type Attachment,
  compact,
  dottedOrder,
  emptyWorkspace,
  expand,
  forgetExperiment,
  keep,
  type TraceRunFields,
  type RunLookup,
  type StoredTraceRun,
  type WorkspaceTraceRuns,
} from './stored-trace-run.ts';
import { batchFeedbackIssues, createdRunIssues, type Loc, runTimes, updateIssues, uuidKey } from './trace-run-checks.ts';
import { checkLineage, computeLineage, type LineageLookup, type LineageSource } from './trace-run-lineage.ts';
import { HeldPatches, HOLD_MS, MAX_HELD } from './held-patches.ts';
import { FilterError, type FilterExpression, matchesFilter, parseFilter } from './run-filter.ts';
import { projectRun, selectsOf, v1Query } from './runs-v2.ts';
import { normalizeTime } from './timestamps.ts';

type Json = Record<string, unknown>;

/** One step of an ingestion request, in the order the request carries them. */
export type IngestOperation =
  | { kind: 'post'; run: Json; at: Loc }
  | { kind: 'patch'; id: string; run: Json; at: Loc }
  | { kind: 'feedback'; feedback: Json; at: Loc }
  | { kind: 'attachment'; runId: string; name: string; attachment: Attachment; at: Loc };

/** One workspace's runs as a snapshot holds them. */
/** A workspace's trace runs in a snapshot file; its keys are the file format's, unchanged since earlier versions wrote it (runs, projects), so a saved state loads. */
export interface StoredWorkspaceTraceRuns {
  runs: (Omit<StoredTraceRun, 'attachments' | 'order'> & { dotted_order: string; attachments: { name: string; mimeType: string; data: string }[] })[];
  feedback: Json[];
  projects: [string, string][];
}

// The experiment of a run sent with no session_id or session_name.
const DEFAULT_EXPERIMENT = 'default';

export class TraceRunStore {
  private readonly workspaces = new Map<string, WorkspaceTraceRuns>();
  /** Per workspace, patches that came before their run's post (not in a snapshot: they wait minutes at most). */
  private readonly heldPatches = new Map<string, HeldPatches>();

  /** `strict`: refuse what an interpretation of the spec would refuse; by default it is accepted and marked (ingest's answer). */
  constructor(private readonly env: { clock: Clock; ids: IdGenerator; strict?: boolean }) {}

  /**
   * Applies a request's operations in order, all or none: every ingestion endpoint comes here (TRACE-FLOW-BASIC,
   * TRACE-FLOW-BATCH), and a malformed one ingests nothing (TRACE-BAD-INPUT, TRACE-MULTIPART-CONSISTENT,
   * ERROR-REFUSED-UNCHANGED-PLATFORM). Each
   * operation's body has passed its schema already (the server checks JSON bodies, parseMultipart the parts).
   */
  ingest(workspaceId: string, operations: IngestOperation[], lineage: LineageSource): RequestViolation[] {
    // Made for the workspace only when this request writes: a refused one changes nothing.
    const data = this.workspaces.get(workspaceId) ?? emptyWorkspace();
    const staged = new Map<string, StoredTraceRun>();
    const feedback = new Map<string, Json>();
    const issues: ValidationIssue[] = [];
    const marks: RequestViolation[] = [];
    const find = (id: string) => staged.get(id) ?? data.traceRuns.get(id);
    const lookup = lineageLookup(find);
    // Runs this request posts, kept or refused: a refused post is the reason to give for its patch.
    const posted = new Set<unknown>();
    const now = this.env.clock.now();
    const held = this.heldPatches.get(workspaceId) ?? new HeldPatches();
    // Patches of runs not posted yet, held until their post arrives (held-patches.ts), and the held ones this request's posts apply.
    const early = new Map<string, Json[]>();
    const applied = new Set<string>();
    for (const op of operations) {
      if (op.kind === 'post') {
        posted.add(typeof op.run.id === 'string' ? uuidKey(op.run.id) : op.run.id);
        let run = this.post(data, op.run, op.at, lineage, lookup, issues, marks);
        if (!run) continue;
        if (find(run.id)) throw conflict(`Run ${run.id} already exists`); // TRACE-DUPLICATE-409
        // The patches that came before this post (held-patches.ts), in the order they came; none held, none looked for.
        if (held.size > 0 || early.size > 0) {
          const waiting = [...held.peek(run.id, now).map((p) => p.run), ...(early.get(run.id) ?? [])];
          for (const patch of waiting) run = run && this.patch(run, patch, [...op.at, 'held patch'], issues, find);
          if (!run) continue;
          if (waiting.length > 0) applied.add(run.id);
          early.delete(run.id);
        }
        staged.set(run.id, run);
      } else if (op.kind === 'patch') {
        const current = find(op.id);
        if (!current && posted.has(op.id)) continue;
        // A batch's patch may come in an earlier request than its post: held. PATCH /runs/{run_id} is sent once its post was answered.
        if (!current && lineage === 'service') throw notFound(`Run ${op.id} not found: post it before patching it`);
        if (!current) {
          early.set(op.id, [...(early.get(op.id) ?? []), op.run]);
          continue;
        }
        const patched = this.patch(current, op.run, op.at, issues, find);
        if (patched) staged.set(op.id, patched);
      } else if (op.kind === 'feedback') {
        const item = this.feedbackItem(op.feedback, op.at, lineage, issues);
        if (!item) continue;
        if (feedback.has(item.id as string) || data.feedback.has(item.id as string)) throw conflict(`Feedback ${String(item.id)} already exists`);
        feedback.set(item.id as string, item);
      } else {
        const target = find(op.runId);
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
    const holding = [...early.values()].reduce((n, list) => n + list.length, 0);
    if (holding > 0 && !held.fits(holding, now)) {
      const [id] = early.keys();
      throw notFound(
        `Run ${id} not found: post it before patching it (the simulator holds at most ${MAX_HELD} patches a workspace for ${HOLD_MS / 1000} s until their post arrives, and that hold is full)`,
      );
    }
    if (!this.workspaces.has(workspaceId)) this.workspaces.set(workspaceId, data);
    if (early.size > 0 && !this.heldPatches.has(workspaceId)) this.heldPatches.set(workspaceId, held);
    for (const run of staged.values()) keep(data, run, find);
    for (const [id, item] of feedback) data.feedback.set(id, item);
    for (const id of applied) held.drop(id);
    for (const [id, runs] of early) for (const run of runs) held.hold(id, run, now);
    return marks;
  }

  /** Stores runs and feedback that the service itself produced (experiment uploads). */
  insert(workspaceId: string, runs: Json[], feedback: Json[]): void {
    const data = this.data(workspaceId);
    const issues: ValidationIssue[] = [];
    for (const run of runs) {
      const stored = this.post(
        data,
        run,
        ['run'],
        'service',
        lineageLookup((id) => data.traceRuns.get(id)),
        issues,
      );
      if (stored) keep(data, stored);
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
    const run = data.traceRuns.get(uuidKey(runId));
    if (!run) throw notFound(`Run ${runId} not found`);
    return this.view(data, run);
  }

  /** The runs matching the filter, a page at a time, next null on the last (TRACE-QUERY). */
  query(workspaceId: string, query: RunQuery): { runs: Json[]; cursors: { next: string | null } } {
    const data = this.data(workspaceId);
    const matching = this.matching(data, query);
    const direction = query.order === 'asc' ? 1 : -1;
    const order = orderIn(data);
    matching.sort((a, b) => direction * (compare(a.start_time, b.start_time) || compare(order(a), order(b))));
    const offset = Number(query.cursor ?? 0) || 0;
    const limit = query.limit ?? 100;
    const page = matching.slice(offset, offset + limit);
    const next = offset + limit < matching.length ? String(offset + limit) : null;
    return { runs: page.map((run) => this.view(data, run)), cursors: { next } };
  }

  /**
   * POST /runs/stats: what the simulator keeps of the runs a query selects (TRACE-STATS): their count, the share that
   * failed, the latencies of those that ended (seconds), the latest start.
   */
  stats(workspaceId: string, query: RunQuery): Json {
    const runs = this.matching(this.data(workspaceId), query);
    const latencies = runs
      .filter((r) => r.end_time !== null)
      .map((r) => (Date.parse(r.end_time!) - Date.parse(r.start_time)) / 1000)
      .sort((a, b) => a - b);
    const percentile = (p: number) => (latencies.length === 0 ? null : latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]);
    return {
      run_count: runs.length,
      error_rate: runs.length === 0 ? null : runs.filter((r) => r.failed).length / runs.length,
      latency_p50: percentile(0.5),
      latency_p99: percentile(0.99),
      last_run_start_time: runs.reduce<string | null>((latest, r) => (latest === null || r.start_time > latest ? r.start_time : latest), null),
    };
  }

  /** GET /api/v2/runs/{run_id}: the run of that project, with the fields its selects name (TRACE-RUNS-V2). */
  readV2(workspaceId: string, runId: string, projectId: string, selects: string[]): Json {
    const run = this.read(workspaceId, runId);
    if (run.session_id !== projectId.toLowerCase()) throw notFound(`Run ${runId} not found in project ${projectId}`);
    return projectRun(run, selectsOf(selects, ['query', 'selects']));
  }

  /** POST /api/v2/runs/query: the runs its query selects in its time window, latest first, a page at a time (TRACE-RUNS-V2). */
  queryV2(workspaceId: string, body: Json): { items: Json[]; next_cursor: string | null } {
    const data = this.data(workspaceId);
    const { query, window, selects } = v1Query(body, this.env.clock.now());
    const matching = this.matching(data, query).filter((r) => {
      const at = Date.parse(r.start_time);
      return at >= window[0] && at <= window[1];
    });
    const order = orderIn(data);
    matching.sort((a, b) => compare(b.start_time, a.start_time) || compare(order(b), order(a)));
    const offset = Number(query.cursor ?? 0) || 0;
    const limit = query.limit ?? 100;
    const next = offset + limit < matching.length ? String(offset + limit) : null;
    return { items: matching.slice(offset, offset + limit).map((run) => projectRun(this.view(data, run), selects)), next_cursor: next };
  }

  /** The runs a query selects, in no order; a part of it the simulator does not apply is refused (queryFilters). */
  private matching(data: WorkspaceTraceRuns, query: RunQuery): StoredTraceRun[] {
    const lower = (list?: string[] | null) => list && new Set(list.map((s) => s.toLowerCase()));
    const ids = lower(query.id);
    const experiments = lower(query.session); // the wire's session: the experiments' ids
    const examples = lower(query.reference_example);
    const trace = query.trace?.toLowerCase();
    const parent = query.parent_run?.toLowerCase();
    const filters = queryFilters(query);
    const startedAfter = typeof query.start_time === 'string' ? normalizeTime(query.start_time) : undefined;
    return this.candidates(data, { ids, trace, parent, experiments }).filter(
      (f) =>
        (!ids || ids.has(f.id)) &&
        (!trace || f.trace_id === trace) &&
        (!parent || f.parent_run_id === parent) &&
        (query.is_root === undefined || query.is_root === null || (f.parent_run_id === null) === query.is_root) &&
        (!experiments || experiments.has(String(f.session_id))) &&
        (!query.run_type || f.run_type === query.run_type) &&
        (!examples || examples.has(String(f.reference_example_id ?? '').toLowerCase())) &&
        (typeof query.error !== 'boolean' || f.failed === query.error) &&
        (!startedAfter || f.start_time >= startedAfter) &&
        (!filters || this.passes(data, f, filters)),
    );
  }

  /**
   * A run against a query's filter expressions (TRACE-QUERY-FILTER): `filter` on the run, `trace_filter` on its trace's
   * root, `tree_filter` on any run of its trace.
   */
  private passes(data: WorkspaceTraceRuns, run: StoredTraceRun, filters: QueryFilters): boolean {
    if (filters.filter && !matchesFilter(filters.filter, this.view(data, run))) return false;
    if (filters.trace) {
      const root = data.traceRuns.get(run.trace_id);
      if (!root || !matchesFilter(filters.trace, this.view(data, root))) return false;
    }
    if (filters.tree) {
      const tree = (data.byTrace.get(run.trace_id) ?? []).flatMap((id) => data.traceRuns.get(id) ?? []);
      if (!tree.some((r) => matchesFilter(filters.tree!, this.view(data, r)))) return false;
    }
    return true;
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

  listFeedback(workspaceId: string, filter: { run?: string[]; experiment?: string[] }): Json[] {
    const runs = filter.run && new Set(filter.run.map((r) => r.toLowerCase()));
    const experiments = filter.experiment && new Set(filter.experiment.map((s) => s.toLowerCase()));
    return [...this.data(workspaceId).feedback.values()]
      .filter((f) => (!runs || runs.has(String(f.run_id))) && (!experiments || experiments.has(String(f.session_id))))
      .map((f) => structuredClone(f));
  }

  /**
   * An experiment that runs were traced into, if `experimentId` names one. The wire calls it a session (its runs'
   * session_id, GET /sessions/{session_id}); the service, a tracing project.
   */
  experiment(workspaceId: string, experimentId: string): Json | undefined {
    return this.experimentsNamed(workspaceId).find((p) => p.id === experimentId.toLowerCase());
  }

  /** The experiments runs were traced into, all or those named `name`, as GET /sessions answers them. */
  experimentsNamed(workspaceId: string, name?: string): Json[] {
    const data = this.data(workspaceId);
    return [...data.experiments]
      .filter(([experimentName]) => name === undefined || experimentName === name)
      .map(([experimentName, id]) => ({
        id,
        name: experimentName,
        tenant_id: workspaceId,
        reference_dataset_id: null,
        run_count: data.byExperiment.get(id)?.length ?? 0,
      }));
  }

  /**
   * POST /sessions: a tracing project, made with no run (TRACE-PROJECTS). A name taken answers 409, or with `upsert`
   * the project of that name. Its id and name are kept; the rest of the body is answered back, not kept.
   */
  createProject(workspaceId: string, body: Json & { name: string }, upsert: boolean): Json {
    const data = this.data(workspaceId);
    const taken = data.experiments.get(body.name);
    if (taken && !upsert) throw conflict(`Session ${body.name} already exists`);
    const { id, name } = this.experimentOf(data, undefined, body.name);
    const answered = { ...body, id, name, tenant_id: workspaceId, reference_dataset_id: body.reference_dataset_id ?? null };
    return { ...answered, start_time: this.env.clock.iso(), run_count: data.byExperiment.get(id)?.length ?? 0 };
  }

  /** Whether `experimentId` names a tracing project: one made, or one runs were traced into. */
  hasProject(workspaceId: string, experimentId: string): boolean {
    const data = this.data(workspaceId);
    const id = experimentId.toLowerCase();
    return data.byExperiment.has(id) || [...data.experiments.values()].includes(id);
  }

  /** DELETE /sessions/{session_id}: a tracing project and its runs, gone (TRACE-PROJECTS). */
  deleteProject(workspaceId: string, experimentId: string): void {
    forgetExperiment(this.data(workspaceId), experimentId.toLowerCase());
  }

  clear(): void {
    this.workspaces.clear();
    this.heldPatches.clear();
  }

  /** Runs (attachments in base64), feedback and experiments per workspace, as plain JSON. */
  snapshot(): Record<string, StoredWorkspaceTraceRuns> {
    return Object.fromEntries(
      [...this.workspaces].map(([workspaceId, data]) => [
        workspaceId,
        {
          runs: [...data.traceRuns.values()].map(({ attachments, order, ...run }) => ({
            ...run,
            dotted_order: dottedOrder({ ...run, order }, (id) => data.traceRuns.get(id)),
            attachments: [...(attachments ?? [])].map(([name, a]) => ({ name, mimeType: a.mimeType, data: a.data.toString('base64') })),
          })),
          feedback: structuredClone([...data.feedback.values()]),
          projects: [...data.experiments],
        },
      ]),
    );
  }

  /** Puts the runs back in the order they were first stored, so that queries list them as before. */
  restore(snapshot: Record<string, StoredWorkspaceTraceRuns>): void {
    const workspaces = Object.entries(snapshot).map(([workspaceId, stored]): [string, WorkspaceTraceRuns] => {
      const data: WorkspaceTraceRuns = {
        ...emptyWorkspace(),
        feedback: new Map(stored.feedback.map((f) => [f.id as string, structuredClone(f)])),
        experiments: new Map(stored.projects),
      };
      const runs = stored.runs.map(({ attachments, dotted_order, ...run }) => {
        const restored: StoredTraceRun = { ...run, order: dotted_order };
        if (attachments.length > 0)
          restored.attachments = new Map(attachments.map((a) => [a.name, { mimeType: a.mimeType, data: Buffer.from(a.data, 'base64') }]));
        return restored;
      });
      // A child may come before its parent: both are looked up among the restored runs.
      const byId = new Map(runs.map((run) => [run.id, run]));
      for (const run of runs) keep(data, run, (id) => byId.get(id));
      return [workspaceId, data];
    });
    this.workspaces.clear();
    for (const [id, data] of workspaces) this.workspaces.set(id, data);
  }

  /** The runs a query can match, from the narrowest index its filter names; every run when it names none. */
  private candidates(
    data: WorkspaceTraceRuns,
    filter: { ids?: Set<string> | null; trace?: string; parent?: string; experiments?: Set<string> | null },
  ): StoredTraceRun[] {
    const resolve = (ids: Iterable<string>) => [...ids].flatMap((id) => data.traceRuns.get(id) ?? []);
    if (filter.ids) return resolve(filter.ids);
    const trace = filter.trace ?? (filter.parent ? data.traceRuns.get(filter.parent)?.trace_id : undefined);
    if (trace) return resolve(data.byTrace.get(trace) ?? []);
    if (filter.parent) return [];
    if (filter.experiments) return [...filter.experiments].flatMap((experiment) => resolve(data.byExperiment.get(experiment) ?? []));
    return [...data.traceRuns.values()];
  }

  /** Each workspace's runs and feedback apart: another workspace finds none of them (AUTH-PLATFORM-WORKSPACE-ISOLATION). */
  private data(workspaceId: string): WorkspaceTraceRuns {
    let data = this.workspaces.get(workspaceId);
    if (!data) this.workspaces.set(workspaceId, (data = emptyWorkspace()));
    return data;
  }

  /** A created run, its lineage computed or checked (trace-run-lineage.ts), in its experiment. */
  private post(
    data: WorkspaceTraceRuns,
    body: Json,
    at: Loc,
    lineage: LineageSource,
    lookup: LineageLookup,
    issues: ValidationIssue[],
    marks: RequestViolation[] = [],
  ): StoredTraceRun | undefined {
    const before = issues.length;
    // POST /runs without an id: the service makes one, as it fills in what the run leaves out (TRACE-CREATE-GENERATES-ID).
    const generated = body.id === undefined && lineage === 'service';
    if (!generated) issues.push(...createdRunIssues(body, at));
    const times = runTimes(body, at, issues);
    if (issues.length > before) return undefined;

    const id = generated ? this.env.ids.uuid() : uuidKey(body.id as string);
    const parentId = typeof body.parent_run_id === 'string' ? uuidKey(body.parent_run_id) : null;
    const traceId = typeof body.trace_id === 'string' ? uuidKey(body.trace_id) : undefined;
    const dotted = typeof body.dotted_order === 'string' ? body.dotted_order : undefined;
    const issue = (field: string, msg: string) => issues.push({ loc: [...at, field], msg, type: 'value_error' });
    // What only an interpretation of the spec refuses: refused under --strict, else accepted and marked.
    const interpretation = this.env.strict
      ? issue
      : (field: string, msg: string) =>
          marks.push({
            at: `/${[...at, field].map((s) => String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`,
            message: msg,
            type: 'interpretation',
          });
    const computed =
      lineage === 'service' && dotted === undefined
        ? computeLineage({ id, parentId, traceId, start: times.start ?? normalizeTime(this.env.clock.iso())! }, lookup, issue)
        : checkLineage({ id, parentId, traceId, dotted, start: times.start, requireTrace: lineage === 'caller' }, lookup, issue, interpretation);
    if (!computed) return undefined;

    const experiment = this.experimentOf(data, body.session_id, body.session_name);
    // The body spread whole: an object rest made an object each copy after it paid for. compact leaves
    // child_runs out, and keeps the session fields apart.
    const fields = {
      ...body,
      id,
      ...computed,
      end_time: times.end ?? null,
      session_id: experiment.id,
      session_name: experiment.name,
    };
    return compact({ ...fields, thread_id: threadIdOf(fields) }, undefined);
  }

  /** An update, e.g. outputs (TRACE-UPDATE); the lineage it was created with stays. */
  private patch(current: StoredTraceRun, body: Json, at: Loc, issues: ValidationIssue[], find: RunLookup): StoredTraceRun | undefined {
    const before = issues.length;
    const times = runTimes(body, at, issues);
    const dotted = dottedOrder(current, find);
    issues.push(...updateIssues({ ...current, dotted_order: dotted }, body, at, times));
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
    const before_ = expand(current, dotted);
    const fields: TraceRunFields = { ...before_, ...changes, extra: mergeExtra(before_.extra, body.extra) };
    if (times.end !== undefined) fields.end_time = times.end;
    return compact({ ...fields, thread_id: threadIdOf(fields) }, current.attachments);
  }

  /** A feedback as stored: its ids lower case, the service's id and times where it sent none. */
  private feedbackItem(body: Json, at: Loc, lineage: LineageSource, issues: ValidationIssue[]): Json | undefined {
    const refused = batchFeedbackIssues(body, at, lineage);
    if (refused.length > 0) {
      issues.push(...refused);
      return undefined;
    }
    const now = this.env.clock.iso();
    const lower = (value: unknown) => (typeof value === 'string' ? uuidKey(value) : (value ?? null));
    return {
      ...body,
      id: lower(body.id) ?? this.env.ids.uuid(),
      run_id: lower(body.run_id),
      trace_id: lower(body.trace_id),
      created_at: body.created_at ?? now,
      modified_at: body.modified_at ?? now,
    };
  }

  /** The experiment a run's session_id or session_name (the wire's names) puts it in, made on first use. */
  private experimentOf(data: WorkspaceTraceRuns, sessionId: unknown, sessionName: unknown): { id: string; name: string | null } {
    if (typeof sessionId === 'string' && sessionId !== '') {
      const id = sessionId.toLowerCase();
      return { id, name: [...data.experiments].find(([, p]) => p === id)?.[0] ?? null };
    }
    const name = typeof sessionName === 'string' && sessionName !== '' ? sessionName : DEFAULT_EXPERIMENT;
    let id = data.experiments.get(name);
    if (!id) data.experiments.set(name, (id = this.env.ids.uuid()));
    return { id, name };
  }

  /** A run as read: the fields it was sent with and the service's own (TRACE-OTHER-FIELDS). */
  private view(data: WorkspaceTraceRuns, run: StoredTraceRun): Json {
    const order = orderIn(data);
    const dotted = order(run);
    const ancestors = dotted
      .split('.')
      .slice(0, -1)
      .map((s) => s.slice(-36).toLowerCase());
    const below = `${dotted}.`;
    const descendants = (data.byTrace.get(run.trace_id) ?? []).flatMap((id) => data.traceRuns.get(id) ?? []).filter((r) => order(r).startsWith(below));
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
      ...expand(run, dotted),
      status: run.end_time ? (run.failed ? 'error' : 'success') : 'pending',
      parent_run_ids: ancestors,
      direct_child_run_ids: descendants.filter((r) => r.parent_run_id === run.id).map((r) => r.id),
      child_run_ids: descendants.map((r) => r.id),
      attachments,
    };
  }
}

interface QueryFilters {
  filter?: FilterExpression;
  trace?: FilterExpression;
  tree?: FilterExpression;
}

/** What POST /runs/query applies; `select` names fields to answer, and answering every field holds them all. */
const HONOURED_QUERY = new Set([
  'id',
  'trace',
  'parent_run',
  'is_root',
  'session',
  'run_type',
  'reference_example',
  'order',
  'limit',
  'cursor',
  'select',
  'filter',
  'trace_filter',
  'tree_filter',
  'error',
  'start_time',
]);

/**
 * A query's filter expressions, parsed; a part of the query the simulator does not apply (a full-text `query`,
 * `execution_order`, a filter operator or field it does not know) is refused with 422 naming it, never ignored: a
 * query answered without it would answer runs the caller did not ask for.
 */
function queryFilters(query: RunQuery): QueryFilters | undefined {
  const refused = Object.entries(query).filter(([key, value]) => value !== null && value !== undefined && !HONOURED_QUERY.has(key));
  if (refused.length > 0) {
    const names = refused.map(([key]) => key);
    throw unprocessable(
      `The simulator does not apply ${names.join(', ')} in a run query: send the query without ${names.length > 1 ? 'them' : 'it'}, or filter with filter, trace_filter or tree_filter`,
      names.map((key) => ({ loc: ['body', key], msg: `the simulator does not apply ${key} in a run query`, type: 'value_error' })),
    );
  }
  const filters: QueryFilters = {};
  for (const [key, field] of [
    ['filter', 'filter'],
    ['trace_filter', 'trace'],
    ['tree_filter', 'tree'],
  ] as const) {
    const text = query[key];
    if (text === undefined || text === null || text === '') continue;
    if (typeof text !== 'string')
      throw unprocessable(`${key} must be a filter expression, a string`, [{ loc: ['body', key], msg: 'a string', type: 'string_type' }]);
    try {
      filters[field] = parseFilter(text);
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      throw unprocessable(`The simulator cannot apply ${key}: ${error.message}`, [{ loc: ['body', key], msg: error.message, type: 'value_error' }]);
    }
  }
  return filters.filter || filters.trace || filters.tree ? filters : undefined;
}

/** The dotted orders of a workspace's runs, each derived once for the read that asks (stored-trace-run.ts). */
function orderIn(data: WorkspaceTraceRuns): (run: StoredTraceRun) => string {
  const find = (id: string) => data.traceRuns.get(id);
  const memo = new Map<StoredTraceRun, string>();
  return (run) => dottedOrder(run, find, memo);
}

/** What the lineage checks read of a run found by id: its dotted_order whole. */
function lineageLookup(find: RunLookup): LineageLookup {
  return (id) => {
    const run = find(id);
    return run && { id: run.id, trace_id: run.trace_id, dotted_order: dottedOrder(run, find) };
  };
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
