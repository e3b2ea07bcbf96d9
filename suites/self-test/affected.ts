// Which spec files a mutation can change the outcome of. A test can only fail against a broken
// target if one of its exchanges is changed; tests keep their state apart, so what a test sends
// before its first changed exchange is what it sent to the unbroken target. Replaying the clean
// run's exchanges through a mutation therefore names every file with a test it can reach, and a
// broken target's run needs only those.
import { isDeepStrictEqual } from 'node:util';
import type { ConformanceReport, RecordedExchange } from '../../reports/model.ts';
import { parse, type MutableRequest, type MutableResponse, type Mutation } from './broken-target.ts';

/** Files whose tests read webhook deliveries: the only ones a delivery mutation reaches. */
const RECEIVER_FILES = /^agent-server\/(webhook|crons|versioning)/;

export function affectedFiles(mutation: Mutation, clean: ConformanceReport): string[] {
  const fileOf = new Map(clean.rules.flatMap((rule) => rule.tests.map((t) => [t.id, t.file] as const)));
  const files = new Set<string>();
  if (mutation.delivery || mutation.deliveryAnswer) for (const file of fileOf.values()) if (RECEIVER_FILES.test(file)) files.add(file);
  const endpoint = mutation.endpoint ?? 'agent-server';
  const memory = new Map<string, unknown>();
  for (const exchange of inOrder(clean.exchanges, endpoint)) {
    const file = fileOf.get(exchange.test ?? '');
    if (file && changes(mutation, exchange, memory)) files.add(file);
  }
  return [...files].sort();
}

/** The exchanges of one endpoint in the order they were made (ids are `<endpoint>-<n>`). */
function inOrder(exchanges: Record<string, RecordedExchange>, endpoint: string): RecordedExchange[] {
  const number = (e: RecordedExchange) => Number(e.id.slice(endpoint.length + 1));
  return Object.values(exchanges)
    .filter((e) => e.id.startsWith(`${endpoint}-`) && /^\d+$/.test(e.id.slice(endpoint.length + 1)))
    .sort((a, b) => number(a) - number(b));
}

/** Whether the broken target's front would answer this exchange differently (as broken-target.ts applies a mutation). */
function changes(mutation: Mutation, exchange: RecordedExchange, memory: Map<string, unknown>): boolean {
  const headers = lowerCased(exchange.request.headers);
  // The front mutates JSON requests only; other bodies pass through.
  if (headers['content-type'] && !/json/i.test(headers['content-type'])) return false;
  const req: MutableRequest = { method: exchange.request.method, path: exchange.request.url, headers, body: parse(exchange.request.body ?? '', headers['content-type']) };
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
