// Trace ingestion at scale: POST /runs/multipart in batches of 100 runs, 8 requests in flight,
// laid out as the official langsmith client lays them out (a `post.<id>` part with the run, and
// `post.<id>.inputs` / `.outputs` parts). Each trace is a root and three children, so that the
// lineage checks and the per-trace lookups do real work. The load generator shares the cores
// with the simulator, as a client on the same machine would.
import { randomUUID } from 'node:crypto';
import { request } from 'undici';

const BATCH = 100;
const IN_FLIGHT = 8;
const RUNS_PER_TRACE = 4;
const BOUNDARY = 'bench-boundary-7f3a';

interface IngestTarget {
  /** The platform API's base URL. */
  url: string;
  apiKey: string;
}

interface Trace {
  rootId: string;
  runIds: string[];
}

/** A compact timestamp segment as the official client writes it (YYYYMMDDTHHMMSSffffffZ). */
function stamp(ms: number): { iso: string; segment: string } {
  const iso = new Date(ms).toISOString();
  return { iso, segment: `${iso.slice(0, 19).replace(/[-:]/g, '')}${iso.slice(20, 23)}000Z` };
}

function part(name: string, json: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n`;
}

/** One multipart body of BATCH runs (BATCH / RUNS_PER_TRACE whole traces), and the traces it carries. */
function batchBody(sequence: number, startMs: number): { body: Buffer; traces: Trace[] } {
  const chunks: string[] = [];
  const traces: Trace[] = [];
  for (let t = 0; t < BATCH / RUNS_PER_TRACE; t++) {
    const rootId = randomUUID();
    const runIds = [rootId];
    const at = stamp(startMs + t);
    const rootOrder = `${at.segment}${rootId}`;
    for (let r = 0; r < RUNS_PER_TRACE; r++) {
      const id = r === 0 ? rootId : randomUUID();
      if (r > 0) runIds.push(id);
      const run = {
        id,
        trace_id: rootId,
        parent_run_id: r === 0 ? null : rootId,
        dotted_order: r === 0 ? rootOrder : `${rootOrder}.${at.segment}${id}`,
        name: r === 0 ? 'agent' : `tool_${r}`,
        run_type: r === 0 ? 'chain' : 'tool',
        start_time: at.iso,
        end_time: at.iso,
        session_name: 'bench',
        extra: { metadata: { batch: sequence, ls_provider: 'bench' } },
      };
      chunks.push(part(`post.${id}`, JSON.stringify(run)));
      chunks.push(part(`post.${id}.inputs`, JSON.stringify({ question: `What is ${sequence} + ${t}?` })));
      chunks.push(part(`post.${id}.outputs`, JSON.stringify({ answer: String(sequence + t) })));
    }
    traces.push({ rootId, runIds });
  }
  chunks.push(`--${BOUNDARY}--\r\n`);
  return { body: Buffer.from(chunks.join('')), traces };
}

interface IngestResult {
  runs: number;
  seconds: number;
  runsPerSecond: number;
  /** The 99th percentile of a batch's time, request sent to answer read, in ms. */
  p99Ms: number;
  failures: number;
  firstFailure?: string;
  /** A sample of the traces sent, for lookups afterwards. */
  sample: Trace[];
}

/** Sends `runs` runs (rounded up to whole batches) and measures the rate. */
export async function ingest(target: IngestTarget, runs: number, startMs = Date.UTC(2026, 0, 1)): Promise<IngestResult> {
  const batches = Math.ceil(runs / BATCH);
  const sample: Trace[] = [];
  let next = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const latencies: number[] = [];
  const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-api-key': target.apiKey };
  const started = performance.now();
  const worker = async () => {
    for (let sequence = next++; sequence < batches; sequence = next++) {
      const { body, traces } = batchBody(sequence, startMs + sequence * BATCH);
      if (sequence % 97 === 0) sample.push(traces[0]);
      const sent = performance.now();
      const res = await request(`${target.url}/runs/multipart`, { method: 'POST', headers, body });
      const text = await res.body.text();
      latencies.push(performance.now() - sent);
      if (res.statusCode !== 202) {
        failures++;
        firstFailure ??= `${res.statusCode} ${text.slice(0, 300)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const p99Ms = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
  return { runs: batches * BATCH, seconds, runsPerSecond: (batches * BATCH) / seconds, p99Ms, failures, firstFailure, sample };
}

interface LookupResult {
  /** Mean time of GET /runs/{id}, in ms, one request at a time. */
  readMs: number;
  /** Mean time of POST /runs/query for one trace's runs, in ms. */
  queryMs: number;
  failures: number;
}

/** Reads sampled runs back one at a time, and queries their traces. */
export async function lookups(target: IngestTarget, sample: Trace[], count = 200): Promise<LookupResult> {
  const headers = { 'x-api-key': target.apiKey, 'content-type': 'application/json' };
  let failures = 0;
  const timed = async (n: number, send: (trace: Trace, i: number) => Promise<boolean>) => {
    const started = performance.now();
    for (let i = 0; i < n; i++) if (!(await send(sample[i % sample.length], i))) failures++;
    return (performance.now() - started) / n;
  };
  const readMs = await timed(count, async (trace, i) => {
    const res = await request(`${target.url}/runs/${trace.runIds[i % RUNS_PER_TRACE]}`, { headers });
    await res.body.text();
    return res.statusCode === 200;
  });
  const queryMs = await timed(Math.ceil(count / 4), async (trace) => {
    const res = await request(`${target.url}/runs/query`, { method: 'POST', headers, body: JSON.stringify({ trace: trace.rootId }) });
    const body = (await res.body.json()) as { runs?: unknown[] };
    return res.statusCode === 200 && body.runs?.length === RUNS_PER_TRACE;
  });
  return { readMs, queryMs, failures };
}
