// Which tests a mutation can change the outcome of. A test can only fail against a broken target
// if one of its exchanges is changed; tests keep their state apart, so what a test sends before
// its first changed exchange is what it sent to the unbroken target. Replaying the clean run's
// exchanges through a mutation therefore names every test it can reach, and a broken target's
// run needs only those.
import { isDeepStrictEqual } from 'node:util';
import type { Endpoint } from '../../specs/contract.ts';
import type { ConformanceReport, RecordedExchange } from '../../reports/conformance-report.ts';
import { SHARED_DEPLOYMENT } from '../../harness/conformance-run.ts';
import { addressed, parse, type MutableResponse, type Mutation } from './broken-target.ts';
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
  const shownBy = new Map<string, string[]>();
  for (const rule of clean.rules) for (const t of rule.tests) for (const id of t.exchanges) shownBy.set(id, [...new Set([...(shownBy.get(id) ?? []), t.id])]);
  const tests = new Set<string>();
  const recordings = new Set<string>();
  const changed = (exchange: RecordedExchange) => {
    if (exchange.test) recordings.add(recordingKey(exchange.test));
    for (const id of shownBy.get(exchange.id) ?? (exchange.test ? [exchange.test] : [])) tests.add(id);
  };
  if (mutation.delivery || mutation.deliveryAnswer) {
    for (const exchange of Object.values(clean.exchanges)) if (READS_DELIVERIES.test(exchange.request.body ?? '')) changed(exchange);
  }
  const endpoint = mutation.endpoint ?? 'agent-server';
  const memory = new Map<string, unknown>();
  // Every exchange is replayed: a mutation may remember what earlier ones carried.
  for (const exchange of inOrder(clean.exchanges, endpoint)) if (changes(mutation, endpoint, exchange, memory)) changed(exchange);
  return { tests, recordings };
}

/**
 * The exchanges of one endpoint in the order the clean run made them: its report lists tests in the
 * run's order and each test's exchanges in the order the test sent them (one worker).
 */
function inOrder(exchanges: Record<string, RecordedExchange>, endpoint: string): RecordedExchange[] {
  return Object.values(exchanges).filter((e) => endpointOfExchange(e.id) === endpoint);
}

/** Whether the broken target's front would answer this exchange differently (as broken-target.ts applies a mutation). */
function changes(mutation: Mutation, endpoint: Endpoint, exchange: RecordedExchange, memory: Map<string, unknown>): boolean {
  const headers = lowerCased(exchange.request.headers);
  // The front mutates JSON requests only; other bodies pass through.
  if (headers['content-type'] && !/json/i.test(headers['content-type'])) return false;
  const req = addressed(endpoint, {
    method: exchange.request.method,
    path: exchange.request.url,
    headers,
    body: parse(exchange.request.body ?? '', headers['content-type']),
  });
  let incoming = req;
  if (mutation.request) {
    const out = mutation.request(structuredClone(req), memory);
    if ('status' in out) return true;
    incoming = out;
  }
  const changedRequest = !isDeepStrictEqual(incoming, req);
  const resHeaders = lowerCased(exchange.response.headers);
  const text = exchange.response.body ?? '';
  if (/event-stream/.test(resHeaders['content-type'] ?? '')) {
    if (!mutation.stream) return changedRequest;
    const out = mutation.stream(text, resHeaders);
    return changedRequest || out.text !== text || !isDeepStrictEqual(out.headers, resHeaders);
  }
  if (!mutation.response) return changedRequest;
  const res: MutableResponse = { status: exchange.response.status, headers: resHeaders, body: parse(text, resHeaders['content-type']) };
  return !isDeepStrictEqual(mutation.response(structuredClone(res), incoming, memory), res) || changedRequest;
}

function lowerCased(headers: [string, string][]): Record<string, string> {
  return Object.fromEntries(headers.map(([name, value]) => [name.toLowerCase(), value]));
}
