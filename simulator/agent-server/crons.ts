// Cron jobs (§4.5, §6a; bodies and objects from the Agent Server OpenAPI, docs.langchain.com/langsmith/agent-server-openapi.json): a thread cron starts a
// run on its thread at each time its schedule names, a stateless cron a stateless run. Times
// come from the virtual clock; cron-parser reads the schedule. Each run carries the cron's
// webhook, so it notifies like any other run. Plain state, no HTTP.
import { CronExpressionParser } from 'cron-parser';
import type { Clock } from '../clock.ts';
import { ApiError, notFound, unprocessable } from '../http/errors.ts';
import type { IdGenerator } from '../ids.ts';
import type { Log } from '../log.ts';
import type { Cron, CronCreate, CronSearch, RunCreate } from '../../specs/types/agent-server.ts';
import type { AssistantStore } from './assistants.ts';
import type { RunStore } from './runs.ts';
import type { ThreadStore } from './threads.ts';

type Values = Record<string, unknown>;

/** Search defaults of the reference (Agent Server OpenAPI). */
const CRON_SEARCH_DEFAULTS = { limit: 10, offset: 0, sort_by: 'created_at', sort_order: 'desc' } as const;

/** Keys of the cron itself; everything else in the body is the runs' body (the reference's bodies: CRON-BODIES). */
const CRON_KEYS = ['schedule', 'end_time', 'enabled', 'timezone'];

/** A cron as stored: the fields the API answers, all set but next_run_date (from nextAt), and the simulator's own. */
export interface CronRecord extends Cron {
  assistant_id: string;
  /** Null for a stateless cron: each of its runs gets a new thread. */
  thread_id: string | null;
  schedule: string;
  timezone: string | null;
  end_time: string | null;
  enabled: boolean;
  /** The body each run is created with. */
  payload: RunCreate;
  metadata: Values;
  user_id: null;
  created_at: string;
  updated_at: string;
  /** When the next run starts; null when the cron will not run again. */
  nextAt: number | null;
  cancel?: () => void;
  seq: number;
}

interface CronStoreDeps {
  clock: Clock;
  ids: IdGenerator;
  runs: RunStore;
  threads: ThreadStore;
  assistants: AssistantStore;
  /** The webhook URL policy; throws ApiError to refuse. */
  checkWebhook: (url: string) => void;
  log?: Log;
}

export class CronStore {
  private crons = new Map<string, CronRecord>();
  private seq = 0;

  constructor(private readonly deps: CronStoreDeps) {}

  clear(): void {
    for (const cron of this.crons.values()) cron.cancel?.();
    this.crons.clear();
    this.seq = 0;
  }

  /** The crons as plain JSON, without their timers. */
  snapshot(): { crons: CronRecord[]; seq: number } {
    return structuredClone({ crons: [...this.crons.values()].map(({ cancel: _cancel, ...cron }) => cron), seq: this.seq });
  }

  /** Puts the crons back, each due again at its next run date (the clock is set first). */
  restore(snapshot: { crons: CronRecord[]; seq: number }): void {
    const crons = new Map(snapshot.crons.map((c): [string, CronRecord] => [c.cron_id, structuredClone(c)]));
    this.clear();
    this.crons = crons;
    this.seq = snapshot.seq;
    for (const cron of crons.values()) if (cron.nextAt !== null) cron.cancel = this.deps.clock.schedule(cron.nextAt, () => this.fire(cron));
  }

  /** POST /threads/{thread_id}/runs/crons, webhook included (CRON-THREAD-CREATE). */
  createForThread(threadId: string, body: CronCreate): Cron {
    this.deps.threads.record(threadId);
    return this.create(threadId, body);
  }

  /** POST /runs/crons, webhook included (CRON-CREATE). */
  createStateless(body: CronCreate): Cron {
    return this.create(null, body);
  }

  /** An array of crons filtered by assistant_id and thread_id, then offset and limit (CRON-SEARCH). */
  search(query: CronSearch): Cron[] {
    const assistantId = query.assistant_id === undefined ? undefined : this.assistantIdOf(query.assistant_id);
    const sortBy = query.sort_by ?? CRON_SEARCH_DEFAULTS.sort_by;
    const direction = (query.sort_order ?? CRON_SEARCH_DEFAULTS.sort_order) === 'asc' ? 1 : -1;
    const offset = query.offset ?? CRON_SEARCH_DEFAULTS.offset;
    const limit = query.limit ?? CRON_SEARCH_DEFAULTS.limit;
    return [...this.crons.values()]
      .map((record) => ({ record, cron: view(record) }))
      .filter(({ cron }) => (query.assistant_id === undefined ? true : cron.assistant_id === assistantId))
      .filter(({ cron }) => (query.thread_id === undefined ? true : cron.thread_id === query.thread_id))
      .filter(({ cron }) => (query.enabled === undefined ? true : cron.enabled === query.enabled))
      .sort((a, b) => direction * (compare(a.cron[sortBy], b.cron[sortBy]) || a.record.seq - b.record.seq))
      .slice(offset, offset + limit)
      .map(({ cron }) => cron);
  }

  /** Deletes the crons of a deleted thread. */
  forgetThread(threadId: string): void {
    for (const cron of [...this.crons.values()].filter((c) => c.thread_id === threadId)) this.delete(cron.cron_id);
  }

  /** The crons of a deleted assistant go with it (ASSISTANT-DELETE). */
  forgetAssistant(assistantId: string): void {
    for (const cron of [...this.crons.values()].filter((c) => c.assistant_id === assistantId)) this.delete(cron.cron_id);
  }

  delete(cronId: string): void {
    const cron = this.crons.get(cronId);
    if (!cron) throw notFound(`Cron with ID ${cronId} not found`);
    cron.cancel?.();
    this.crons.delete(cronId);
  }

  private create(threadId: string | null, body: CronCreate): Cron {
    const assistant = this.deps.assistants.get(body.assistant_id);
    const timezone = body.timezone ?? null;
    if (timezone !== null && !isTimeZone(timezone)) {
      throw invalid('timezone', `Unknown timezone '${timezone}': give an IANA time zone such as 'Europe/Paris'`);
    }
    // Parsed once now, so a bad schedule creates nothing (CRON-BAD-INPUT).
    nextTime(body.schedule, timezone, this.deps.clock.now());
    if (body.webhook !== undefined) this.deps.checkWebhook(body.webhook);
    const cronId = this.deps.ids.uuid();

    const now = this.deps.clock.iso();
    const runBody = Object.fromEntries(
      Object.entries(body)
        .filter(([key]) => !CRON_KEYS.includes(key))
        .map(([key, value]) => [key, structuredClone(value)]),
    );
    const payload: RunCreate = { ...runBody, assistant_id: assistant.assistant_id };
    const record: CronRecord = {
      cron_id: cronId,
      assistant_id: assistant.assistant_id,
      thread_id: threadId,
      schedule: body.schedule,
      timezone,
      end_time: body.end_time ?? null,
      enabled: body.enabled ?? true,
      payload,
      metadata: structuredClone(body.metadata ?? {}),
      user_id: null,
      created_at: now,
      updated_at: now,
      nextAt: null,
      seq: this.seq++,
    };
    this.crons.set(cronId, record);
    this.scheduleNext(record, this.deps.clock.now());
    return view(record);
  }

  /** One run at each time the schedule names, read in UTC unless timezone is given (CRON-RUNS-ON-SCHEDULE). */
  private scheduleNext(cron: CronRecord, after: number): void {
    const next = nextTime(cron.schedule, cron.timezone, after);
    const ended = cron.end_time !== null && next > Date.parse(cron.end_time);
    cron.nextAt = cron.enabled && !ended ? next : null;
    if (cron.nextAt !== null) cron.cancel = this.deps.clock.schedule(cron.nextAt, () => this.fire(cron));
  }

  private fire(cron: CronRecord): void {
    const at = cron.nextAt ?? this.deps.clock.now();
    // The cron's body, webhook included: each run it starts notifies like any other run.
    const body = structuredClone(cron.payload);
    try {
      if (cron.thread_id === null)
        this.deps.runs.createStateless(body); // WEBHOOK-EMIT-CRON
      else this.deps.runs.create(cron.thread_id, body); // WEBHOOK-EMIT-THREAD-CRON
    } catch (error) {
      // A refused run (its thread gone or busy under `reject`) skips this time, as a missed tick.
      if (!(error instanceof ApiError)) throw error;
      this.deps.log?.info(`cron ${cron.cron_id} could not start a run: ${error.message}`);
    }
    this.scheduleNext(cron, at);
  }

  private assistantIdOf(idOrGraph: string): string | undefined {
    try {
      return this.deps.assistants.get(idOrGraph).assistant_id;
    } catch (error) {
      if (error instanceof ApiError) return undefined;
      throw error;
    }
  }
}

/**
 * The first time after `after` that the schedule names. Only the five standard fields are
 * accepted: cron-parser would read a sixth field as seconds first, the reference's croniter
 * as seconds last, so such a schedule would not mean the same on both.
 */
function nextTime(schedule: string, timezone: string | null, after: number): number {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw invalid('schedule', `Invalid cron schedule '${schedule}': give five fields (minute hour day-of-month month day-of-week), e.g. '*/5 * * * *'`);
  }
  try {
    // The schedule seeds cron-parser's `H` fields, which would otherwise be random.
    return CronExpressionParser.parse(schedule, { currentDate: new Date(after), tz: timezone ?? 'UTC', hashSeed: schedule })
      .next()
      .getTime();
  } catch (error) {
    throw invalid('schedule', `Invalid cron schedule '${schedule}': ${(error as Error).message}`);
  }
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function invalid(field: string, message: string): ApiError {
  return unprocessable(message, [{ loc: ['body', field], msg: message, type: 'value_error' }]);
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return String(a) < String(b) ? -1 : 1;
}

/** A cron as answered, with cron_id, schedule and next_run_date (CRON-CREATE-SCHEDULE). */
function view(record: CronRecord): Cron {
  const { nextAt, cancel: _cancel, seq: _seq, ...cron } = record;
  return structuredClone({ ...cron, next_run_date: nextAt === null ? null : new Date(nextAt).toISOString() });
}
