// Trace runs as the official client builds them (langsmith JS client, langsmith-sdk js/src/run_trees.ts): UUID v7
// ids, trace_id and dotted_order computed by the caller, and the multipart body that carries
// them. Ids are derived from the test key, so a run's ids are the same on every run of
// the suites against a fresh simulator, and unique to the test.
import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { precondition, rulesOfStep } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { TraceRun as DocumentedTraceRun } from '../../specs/types/platform-api.ts';

type Json = Record<string, unknown>;

/** A trace run (§2.5) as runTree builds it: the documented run with the fields the official client always sets. */
export type TraceRun = DocumentedTraceRun & { id: string; name: string; run_type: string; start_time: string; trace_id: string; dotted_order: string };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A segment of spec §2.5, with the optional fraction of up to six digits the clients send. */
export const SEGMENT = /^(\d{8}T\d{6})(\d{0,6})Z([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * Fresh ids for one test. On a target that is not a fresh simulator, the wall clock joins the
 * seed, so a second run of the suites does not collide with the runs of the first.
 */
export class TraceRunIds {
  private n = 0;
  private readonly nonce: string;
  /** The conformance run's run key, which names its trace runs: a trace cannot be deleted, but it can be found. */
  readonly runKey: string;

  constructor(testKey: string, conformanceRun: ConformanceRun) {
    this.nonce = conformanceRun.target.capabilities.includes('seeded-ids') ? testKey : `${testKey}:${Date.now()}`;
    this.runKey = conformanceRun.runKey;
  }

  /** A UUID v7 whose timestamp is `ms`, as RunTree ids are. */
  v7(ms: number): string {
    return v7Of(this.bytes(), ms);
  }

  v4(): string {
    const hex = this.bytes();
    const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  private bytes(): string {
    return createHash('sha256')
      .update(`${this.nonce}:${this.n++}`)
      .digest('hex');
  }
}

/** A UUID v7 whose timestamp is `ms` and whose other bits are taken from `hex`. */
function v7Of(hex: string, ms: number): string {
  const time = ms.toString(16).padStart(12, '0');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(1, 4)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Where the runs of a test start: a fixed instant on the simulator, now elsewhere. */
export function baseTime(conformanceRun: ConformanceRun): number {
  return conformanceRun.target.capabilities.includes('virtual-clock') ? Date.UTC(2026, 0, 1, 9, 30, 15) : Date.now() - 60_000;
}

/** An ISO time with `digits` fraction digits (0 to 6); the digits past milliseconds are `micros`. */
export function isoWith(ms: number, digits = 6, micros = 0): string {
  const iso = new Date(ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.slice(0, digits);
  return `${iso.slice(0, 19)}${digits > 0 ? `.${fraction}` : ''}Z`;
}

/** The compact segment timestamp: YYYYMMDDTHHMMSS, then the fraction of `iso`, then Z. */
function compact(iso: string): string {
  const [whole, fraction = ''] = iso.replace(/Z$/, '').split('.');
  return `${whole.replace(/[-:]/g, '')}${fraction}Z`;
}

/**
 * A run tree: `parents[i]` is the index of run i's parent (always lower) or null for the root.
 * Run i starts `i` seconds after `start`, so every child starts after its parent; its
 * dotted_order carries `digits` fraction digits as the official client does with six.
 */
export function runTree(ids: TraceRunIds, parents: (number | null)[], options: { start: number; digits?: number; experiment?: string }): TraceRun[] {
  const runs: TraceRun[] = [];
  parents.forEach((parentIndex, i) => {
    const ms = options.start + i * 1000 + i;
    const start = isoWith(ms, options.digits ?? 6, i + 1);
    const id = ids.v7(ms);
    const parent = parentIndex === null ? undefined : runs[parentIndex];
    const segment = `${compact(start)}${id}`;
    runs.push({
      id,
      // Marked as this run's: a trace cannot be deleted, but it can be found.
      name: `apc-${ids.runKey}-${parent ? `child-${i}` : 'root'}`,
      run_type: parent ? 'llm' : 'chain',
      start_time: start,
      trace_id: parent?.trace_id ?? id,
      dotted_order: parent ? `${parent.dotted_order}.${segment}` : segment,
      ...(parent ? { parent_run_id: parent.id } : {}),
      // The wire names the experiment session.
      ...(options.experiment ? { session_name: options.experiment } : {}),
      inputs: { index: i },
    });
  });
  return runs;
}

export interface Part {
  name: string;
  contentType: string;
  data: string | Buffer;
}

const OUT_OF_BAND = ['inputs', 'outputs', 'events', 'extra', 'error', 'serialized'];

/** A run's parts in the client's layout: the run without its out-of-band fields, then one part per such field. */
export function runParts(event: 'post' | 'patch', run: Json): Part[] {
  const main = Object.fromEntries(Object.entries(run).filter(([key]) => !OUT_OF_BAND.includes(key)));
  const parts: Part[] = [{ name: `${event}.${run.id}`, contentType: 'application/json', data: JSON.stringify(main) }];
  for (const key of OUT_OF_BAND) {
    if (run[key] !== undefined) parts.push({ name: `${event}.${run.id}.${key}`, contentType: 'application/json', data: JSON.stringify(run[key]) });
  }
  return parts;
}

/** A multipart body as the official client writes it: `length=` on each part's Content-Type, CRLF line ends. */
export function multipartBody(parts: Part[], boundary = '----LangSmithFormBoundaryapcsuite'): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const data = Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8');
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\nContent-Type: ${part.contentType}; length=${data.length}\r\n\r\n`,
        'utf8',
      ),
      data,
      Buffer.from('\r\n', 'utf8'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Whether the target serves a read the spec does not show that `check` needs, beside other evidence
 * of its rule: where its config declares it does not (not_shown_operations), the check is left out,
 * noted for the report, and the rule is judged on what the spec shows.
 */
export function servesRead(client: ApiClient, operationId: string, check: string): boolean {
  if (client.serves(operationId)) return true;
  test.info().annotations.push({
    type: 'not checked',
    description: `${check}: the target declares it serves no ${operationId}, a read the spec does not show (not_shown_operations)`,
  });
  return false;
}

/**
 * An answer that shows nothing is found is evidence of an absence only where the same read shows
 * what exists: `shows` reads, the same way, something that does (a control written just now). Where
 * it shows nothing either, the read tells nothing here: a failed precondition explained by the
 * read's own rule (its operation's x-rule: TRACE-READ-RUN …), so a target whose reads answer nothing
 * cannot pass an absence.
 */
export async function requireShownAbsence(res: ApiResponse, what: string, shows: () => Promise<boolean>): Promise<void> {
  if (res.status >= 200 && res.status < 300) return;
  if (!(await shows()))
    skipForPrecondition(
      `precondition failed: ${what}: the read answered nothing, and answers nothing written just now either, so it shows no absence: ${res.describe()}`,
      rulesOfStep(res),
    );
}

/**
 * A read that must find nothing. The status for an unknown id is not shown (§7), so any 4xx will
 * do: TRACE-READ-UNKNOWN-404 is the rule that asks for 404. The absence is evidence only where the
 * read shows what exists (requireShownAbsence).
 */
export async function expectNotFound(res: ApiResponse, what: string, shows: () => Promise<boolean>): Promise<void> {
  await requireShownAbsence(res, what, shows);
  expect(res.status >= 400 && res.status < 500, res.describe(`${what} is not found (a 4xx)`)).toBe(true);
}

/**
 * GET /runs/{id} of a run that must not exist (expectNotFound; the control is a run written now,
 * servesRunReads), where the target serves that read (servesRead).
 */
export async function expectNoRun(client: ApiClient, time: Time, id: string, what: string, headers?: Record<string, string>): Promise<void> {
  if (!servesRead(client, 'readRun', `${what} is not found`)) return;
  await expectNotFound(await client.get(`/runs/${id}`, { headers }), what, () => servesRunReads(client, time, id, headers));
}

interface ReadOptions<T> {
  headers?: Record<string, string>;
  /** Whether the body shows the write (an update applied); by default any 200 does. */
  ready?: (body: T) => boolean;
}

/**
 * Reads what the test just wrote, as a user of an eventually consistent service does: until the
 * read answers 200 and `ready` accepts its body, or the target's deadline (`ingest` unless named)
 * passes. A 404 for a moment (the write not persisted yet) is no answer yet; a 429 (the run-lookup
 * limit of §8) waits out its Retry-After. Answers the last read, which the test judges.
 */
export async function untilWritten<T>(
  time: Time,
  read: () => Promise<ApiResponse<T>>,
  ready: (body: T) => boolean = () => true,
  deadline: 'ingest' | 'stats' = 'ingest',
): Promise<ApiResponse<T>> {
  time.allow(deadline);
  const once = async () => {
    const res = await read();
    if (res.status === 429) await time.pass((Number(res.headers['retry-after']) || 60) * 1000);
    return res;
  };
  return (
    await time.poll(once, (res) => res.status === 200 && ready(res.json), {
      deadline,
      what: `the platform to ${deadline === 'stats' ? 'fill its statistics' : 'ingest the trace'}`,
    })
  ).value;
}

/** GET of what the test just wrote: see untilWritten. */
export function readWritten<T>(client: ApiClient, time: Time, path: string, { headers, ready }: ReadOptions<T> = {}): Promise<ApiResponse<T>> {
  return untilWritten(time, () => client.get<T>(path, { headers }), ready);
}

/**
 * A read the spec does not show (x-spec: extra) taken as evidence of what the test wrote. What its
 * 200 shows is the caller's to judge. No 200 by the deadline says one of two things: the target
 * serves no such read (the spec allows that), or what was written is not there. `served` tells
 * them apart by reading, the same way, what a write the spec shows has just made: when that answers,
 * the read is served and the missing answer fails the test's rule; when it does not (or there is no
 * control), the test cannot judge its rule with this read, a failed precondition explained by the
 * read's own rule (its operation's x-rule: TRACE-READ-RUN …), whose test fails in the same run.
 */
export async function readEvidence<T>(res: ApiResponse<T>, what: string, served?: () => Promise<boolean>): Promise<ApiResponse<T>> {
  if (res.status === 200) return res;
  if (served && (await served())) {
    expect(res.status, res.describe(`${what}: the target serves this read (a control written just now reads back), so it answers what was written`)).toBe(200);
  }
  precondition(res, `${what} (a read the spec does not show)`);
  return res;
}

/**
 * GET /runs/{id} of a run the test wrote, once it is there (untilWritten), as evidence (readEvidence):
 * the control is a run posted now by POST /runs and one by POST /runs/multipart, read with the same
 * headers.
 */
export async function readTraceRun<T = TraceRun>(client: ApiClient, time: Time, id: string, options: ReadOptions<T> = {}): Promise<ApiResponse<T>> {
  const res = await readWritten<T>(client, time, `/runs/${id}`, options);
  return readEvidence(res, `read run ${id} back`, () => servesRunReads(client, time, id, options.headers));
}

/** What servesRunReads found, per client (a test's) and headers: the control is written once a test. */
const runReadsServed = new WeakMap<ApiClient, Map<string, Promise<boolean>>>();

/** Whether the target serves GET /runs/{id}: a control run of each write of §4.3 that creates one reads back, with the same headers. */
export function servesRunReads(client: ApiClient, time: Time, of: string, headers?: Record<string, string>): Promise<boolean> {
  const known = runReadsServed.get(client) ?? runReadsServed.set(client, new Map()).get(client)!;
  const key = JSON.stringify(headers ?? {});
  const found = known.get(key) ?? readsControlRuns(client, time, of, headers);
  known.set(key, found);
  return found;
}

async function readsControlRuns(client: ApiClient, time: Time, of: string, headers?: Record<string, string>): Promise<boolean> {
  // Ids of its own, derived from the run read: the same on every run of the suites.
  const hex = (salt: string) => createHash('sha256').update(`${salt}:${of}`).digest('hex');
  const ms = /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(of) ? parseInt(of.slice(0, 8) + of.slice(9, 13), 16) : Date.now();
  const start = isoWith(ms, 3);
  const posted = v7Of(hex('control-post'), ms);
  const batched = v7Of(hex('control-multipart'), ms);
  await client.post('/runs', { id: posted, name: 'apc-control', run_type: 'chain', start_time: start }, { headers });
  const run = { id: batched, name: 'apc-control', run_type: 'chain', start_time: start, trace_id: batched, dotted_order: `${compact(start)}${batched}` };
  const { body, contentType } = multipartBody(runParts('post', run));
  await client.post('/runs/multipart', undefined, { rawBody: body, headers: { ...headers, 'content-type': contentType } });
  for (const id of [posted, batched]) if ((await readWritten(client, time, `/runs/${id}`, { headers })).status === 200) return true;
  return false;
}

/**
 * The feedback of run `runId` is only a control posted now: the refused writes of `what` stored none,
 * where the target serves the feedback list (servesRead). The list showing no other feedback is
 * evidence only where it shows the control (POST /feedback, a path the spec does not show either),
 * listed once it is there; where it does not, a failed precondition explained by the list's rule.
 */
export async function expectNoOtherFeedback(client: ApiClient, time: Time, runId: string, what: string): Promise<void> {
  const check = `${what}: no feedback was stored`;
  if (!servesRead(client, 'listFeedback', check) || !servesRead(client, 'createFeedback', check)) return;
  const control = createHash('sha256').update(`feedback:${runId}`).digest('hex');
  const id = `${control.slice(0, 8)}-${control.slice(8, 12)}-4${control.slice(13, 16)}-8${control.slice(17, 20)}-${control.slice(20, 32)}`;
  precondition(await client.post('/feedback', { id, run_id: runId, key: 'apc-control', score: 1 }), 'post a control feedback');
  const shows = (list: { id?: string }[]) => Array.isArray(list) && list.some((f) => f.id === id);
  const res = await untilWritten(time, () => client.get<{ id?: string }[]>(`/feedback?run=${runId}`), shows);
  precondition(res, 'list the feedback of the run (a list the spec does not show)');
  if (!shows(res.json))
    skipForPrecondition(
      `precondition failed: the feedback list of the run does not show the control feedback posted just now: ${res.describe()}`,
      rulesOfStep(res),
    );
  expect(
    res.json.filter((f) => f.id !== id),
    res.describe(check),
  ).toEqual([]);
}

/** GET /feedback/{id} of feedback the test wrote, as evidence (readEvidence, no control: only SHOULD rules read feedback one by one). */
export async function readFeedback<T>(client: ApiClient, time: Time, id: string): Promise<ApiResponse<T>> {
  return readEvidence(await readWritten<T>(client, time, `/feedback/${id}`), `read feedback ${id} back`);
}

/**
 * PATCH of a run the test wrote with `update`, the fields to change. §4.3 writes the path PATCH /runs
 * and shows no body; the service and its clients send PATCH /runs/{run_id} (the contract's
 * updateRun). Either form is the spec's update: the service's first, and where the target serves no
 * such path (404 or 405), the spec's path with the run id in the body. The answer judged is the
 * spec's form's where the target serves that form (neither 404 nor 405), else the service's form's.
 * `base` is a prefix the paths are sent under (§9: /api/v1).
 */
export async function updateTraceRun(
  client: ApiClient,
  id: string,
  update: Record<string, unknown>,
  { headers, base = '' }: { headers?: Record<string, string>; base?: string } = {},
): Promise<ApiResponse> {
  const byPath = await client.patch(`${base}/runs/${id}`, update, { headers });
  if (byPath.status !== 404 && byPath.status !== 405) return byPath;
  const byBody = await client.patch(`${base}/runs`, { ...update, id }, { headers });
  return byBody.status === 404 || byBody.status === 405 ? byPath : byBody;
}
