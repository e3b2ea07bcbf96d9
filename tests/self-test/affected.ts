// Which tests a mutation can change the outcome of. A test can only fail against a broken target
// if one of its exchanges is changed; tests keep their state apart, so what a test sends before
// its first changed exchange is what it sent to the unbroken target. Replaying the clean run's
// exchanges through a mutation therefore names every test it can reach, and a broken target's
// run needs only those.
import { isDeepStrictEqual } from 'node:util';
import type { ConformanceReport, RecordedExchange } from '../../reports/conformance-report.ts';
import { SHARED_DEPLOYMENT } from '../../harness/conformance-run.ts';
import { addressed, parse, type MutableRequest, type MutableResponse, type Mutation } from './broken-target.ts';
import { endpointOfExchange } from '../../specs/evidence-protocol.ts';

/** Tests that read webhook deliveries: their requests name a URL under their receiver path. */
const READS_DELIVERIES = /\/apc-hooks\//;

interface Reach {
  /** The tests whose outcome the mutation can change. */
  tests: Set<string>;
  /**
   * The recording ids of the exchanges it changes: a test's own id, or the id of a step tests
   * share (a shared deployment); the broken target routes requests to the mutation by these.
   */
  recordings: Set<string>;
}

/**
 * The key a broken target routes a recording id by. A shared deployment's id names the worker
 * that made it, and a run of a few tests has other workers than the clean run: all shared
 * deployments are one key.
 */
export function recordingKey(id: string): string {
  return id.startsWith(`${SHARED_DEPLOYMENT}-`) ? SHARED_DEPLOYMENT : id;
}

/** What a mutation can reach: every test that shows an exchange it changes (shared steps are shown by each test that used them). */
export function reach(mutation: Mutation, clean: ConformanceReport): Reach {
  const { shownBy, deliveryReads, byEndpoint } = replayOf(clean);
  const tests = new Set<string>();
  const recordings = new Set<string>();
  const changed = (exchange: RecordedExchange) => {
    if (exchange.test) recordings.add(recordingKey(exchange.test));
    for (const id of shownBy.get(exchange.id) ?? (exchange.test ? [exchange.test] : [])) tests.add(id);
  };
  if (mutation.delivery || mutation.deliveryAnswer) for (const exchange of deliveryReads) changed(exchange);
  const endpoint = mutation.endpoint ?? 'agent-server';
  const memory = new Map<string, unknown>();
  // Every exchange is replayed: a mutation may remember what earlier ones carried.
  for (const replayed of byEndpoint.get(endpoint) ?? []) if (changes(mutation, replayed, memory)) changed(replayed.exchange);
  return { tests, recordings };
}

/** An exchange of the clean run as the broken target's front would meet it: parsed once, replayed through every mutation. */
interface Replayed {
  exchange: RecordedExchange;
  /** The request as the front hands it to a mutation (undefined: not JSON, which the front passes through). */
  request?: MutableRequest;
  responseHeaders: Record<string, string>;
  text: string;
  /** The parsed answer (not for an event stream, which a mutation gets as text). */
  body?: unknown;
}

interface Replay {
  /** The tests that show each exchange. */
  shownBy: Map<string, string[]>;
  /** The exchanges that read webhook deliveries. */
  deliveryReads: RecordedExchange[];
  /** Each endpoint's exchanges, in the order the clean run made them. */
  byEndpoint: Map<string, Replayed[]>;
}

/** Each clean run parsed once: the self-tests replay it through hundreds of mutations and variants. */
const replays = new WeakMap<ConformanceReport, Replay>();

function replayOf(clean: ConformanceReport): Replay {
  const known = replays.get(clean);
  if (known) return known;
  const shownBy = new Map<string, Set<string>>();
  for (const rule of clean.rules) for (const t of rule.tests) for (const id of t.exchanges) shownBy.set(id, (shownBy.get(id) ?? new Set()).add(t.id));
  // The report lists tests in the run's order and each test's exchanges in the order the test sent them (one worker).
  const exchanges = Object.values(clean.exchanges);
  const byEndpoint = new Map<string, Replayed[]>();
  for (const exchange of exchanges) {
    const endpoint = endpointOfExchange(exchange.id);
    if (!endpoint) continue;
    const headers = lowerCased(exchange.request.headers);
    const responseHeaders = lowerCased(exchange.response.headers);
    const text = exchange.response.body ?? '';
    // The front mutates JSON requests only; other bodies pass through.
    const json = !headers['content-type'] || /json/i.test(headers['content-type']);
    const request = json
      ? addressed(endpoint, {
          method: exchange.request.method,
          path: exchange.request.url,
          headers,
          body: parse(exchange.request.body ?? '', headers['content-type']),
        })
      : undefined;
    const stream = /event-stream/.test(responseHeaders['content-type'] ?? '');
    const replayed: Replayed = { exchange, request, responseHeaders, text, body: json && !stream ? parse(text, responseHeaders['content-type']) : undefined };
    byEndpoint.get(endpoint)?.push(replayed) ?? byEndpoint.set(endpoint, [replayed]);
  }
  const replay: Replay = {
    shownBy: new Map([...shownBy].map(([id, tests]) => [id, [...tests]])),
    deliveryReads: exchanges.filter((e) => READS_DELIVERIES.test(e.request.body ?? '')),
    byEndpoint,
  };
  replays.set(clean, replay);
  return replay;
}

/** Whether the broken target's front would answer this exchange differently (as broken-target.ts applies a mutation). */
function changes(mutation: Mutation, { request: req, responseHeaders: resHeaders, text, body, exchange }: Replayed, memory: Map<string, unknown>): boolean {
  if (!req) return false;
  let incoming = req;
  if (mutation.request) {
    const out = mutation.request(structuredClone(req), memory);
    if ('status' in out) return true;
    incoming = out;
  }
  const changedRequest = !isDeepStrictEqual(incoming, req);
  if (/event-stream/.test(resHeaders['content-type'] ?? '')) {
    if (!mutation.stream) return changedRequest;
    const out = mutation.stream(text, { ...resHeaders });
    return changedRequest || out.text !== text || !isDeepStrictEqual(out.headers, resHeaders);
  }
  if (!mutation.response) return changedRequest;
  const res: MutableResponse = { status: exchange.response.status, headers: resHeaders, body };
  // The parsed exchange is replayed through the next mutation too: this one gets copies to change.
  return !isDeepStrictEqual(mutation.response(structuredClone(res), incoming === req ? structuredClone(req) : incoming, memory), res) || changedRequest;
}

function lowerCased(headers: [string, string][]): Record<string, string> {
  return Object.fromEntries(headers.map(([name, value]) => [name.toLowerCase(), value]));
}
