// The fuzz: malformed requests (requests.ts) to one endpoint, directly or through the recording
// proxy, checked as a fast-check property. Required outcome: no 5xx, no dropped connection, and,
// where the state can be read (an in-process simulator), a refused request leaves it unchanged.
// A failure prints fast-check's seed and shrunk counterexample.
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import type { Endpoint, Operation } from '../../specs/contract.ts';
import type { Simulator } from '../../simulator/simulator.ts';
import { fuzzRequests, type FuzzContext, type FuzzRequest } from './requests.ts';
import { stateDigest } from './state-digest.ts';

interface FuzzTally {
  endpoint: Endpoint;
  sent: number;
  /** Answers by status class: 2xx, 4xx, … ('dropped': the connection closed without an answer). */
  byClass: Record<string, number>;
  /** Statuses seen, with how many times. */
  byStatus: Record<string, number>;
}

const ANSWER_WITHIN_MS = Number(process.env.APC_FUZZ_ANSWER_WITHIN_MS ?? 30_000);

interface Answer {
  status: number | 'dropped';
  body: string;
}

/** Sends one request as is (the path unparsed), and reads the whole answer. */
function send(base: string, req: FuzzRequest, agent: Agent): Promise<Answer> {
  const url = new URL(base);
  return new Promise((done) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => done({ status: 'dropped', body: error.message }));
      },
    );
    outgoing.on('error', (error) => done({ status: 'dropped', body: error.message }));
    // A request left unanswered is a failure as much as a dropped one.
    outgoing.setTimeout(ANSWER_WITHIN_MS, () => outgoing.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS} ms`)));
    outgoing.end(req.body);
  });
}

interface FuzzOptions {
  endpoint: Endpoint;
  /** Where the requests go: the endpoint itself, or a proxy in front of it. */
  url: string;
  context: FuzzContext;
  runs: number;
  seed: number;
  /** The simulator behind `url`, when in process: its state is checked after each refusal. */
  simulator?: Simulator;
}

/** Sends `runs` malformed requests; throws (with seed and counterexample) on a 5xx, a drop or a changed state. */
export async function fuzz(options: FuzzOptions): Promise<FuzzTally> {
  const tally: FuzzTally = { endpoint: options.endpoint, sent: 0, byClass: {}, byStatus: {} };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let before = options.simulator ? stateDigest(options.simulator) : '';
  // A dropped connection can be the previous request's doing (on the same kept-alive socket).
  let previous = '(none)';
  try {
    await fc.assert(
      fc.asyncProperty(fuzzRequests(options.endpoint, options.context), async (req) => {
        const answer = await send(options.url, req, agent);
        tally.sent++;
        const kind = answer.status === 'dropped' ? 'dropped' : `${String(answer.status)[0]}xx`;
        tally.byClass[kind] = (tally.byClass[kind] ?? 0) + 1;
        tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
        const problem = (what: string) =>
          `${what}: ${req.method} ${req.path.slice(0, 200)} [${req.broken.join('; ')}] answered ${answer.status} ${answer.body.slice(0, 300)}; the request before: ${previous}`;
        previous = `${req.method} ${req.path.slice(0, 200)} [${req.broken.join('; ')}] → ${answer.status}`;
        if (answer.status === 'dropped') throw new Error(problem('the connection was dropped'));
        if (answer.status >= 500) throw new Error(problem('a 5xx'));
        if (answer.status < 300) harvest(options.context, req.operation, answer.body);
        if (options.simulator) {
          const after = stateDigest(options.simulator);
          const changed = answer.status >= 400 && after !== before;
          before = after;
          if (changed) throw new Error(problem('a refused request changed the state'));
        }
      }),
      { numRuns: options.runs, seed: options.seed, endOnFailure: false },
    );
  } finally {
    agent.destroy();
  }
  return tally;
}

const POOL = 20;

/**
 * Keeps the ids an accepted request answered (thread_id, latest_revision_id, or the id of what
 * the operation creates, `x-creates`), so later requests reach existing resources.
 */
function harvest(context: FuzzContext, operation: Operation, body: string): void {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return;
  }
  const created = operation.document['x-creates'];
  const keep = (name: string, id: unknown) => {
    if (typeof id !== 'string') return;
    const pool = (context.ids[name] ??= []);
    if (!pool.includes(id)) pool.push(id);
    if (pool.length > POOL) pool.shift();
  };
  const walk = (node: unknown, top: boolean) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      const named = /^(?:latest_)?(\w+_id)$/.exec(key);
      if (named) keep(named[1], child);
      else if (key === 'id' && top && created) keep(`${created}_id`, child);
      walk(child, false);
    }
  };
  for (const item of Array.isArray(value) ? value : [value]) walk(item, true);
}

/** One line per tally, for the test's output and the nightly script. */
export function describeTally(tally: FuzzTally, via: string): string {
  const classes = Object.entries(tally.byClass)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `${tally.endpoint.padEnd(16)} ${via.padEnd(7)} ${String(tally.sent).padStart(6)} requests: ${classes}`;
}
