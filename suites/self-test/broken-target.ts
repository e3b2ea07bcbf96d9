// A target broken on purpose: the simulator behind a small server that changes one
// behaviour (a mutation). The self-tests run the suites against it and check that
// exactly the rules the mutation breaks fail.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Endpoint } from '../../specs/contract.ts';
import { startSimulator } from '../../simulator/simulator.ts';

export interface MutableRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface MutableResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: unknown;
}

export interface Mutation {
  /** The endpoint broken (default agent-server); the others pass through. */
  endpoint?: Endpoint;
  /** The mutation touches rate limits: their suites run too (they are left out otherwise). */
  rateLimits?: boolean;
  /** Rules the mutation breaks; the self-test expects exactly these to fail. */
  breaks: string[];
  description: string;
  /** Changes a request on its way in, or answers it directly. */
  request?: (req: MutableRequest, memory: Map<string, unknown>) => MutableRequest | MutableResponse;
  /** Changes a response on its way out. */
  response?: (res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>) => MutableResponse;
  /** Changes an event-stream response (whole, once it ended) and its headers. */
  stream?: (text: string, headers: Record<string, string>) => { text: string; headers: Record<string, string> };
}

export interface BrokenTarget {
  url: string;
  close(): Promise<void>;
}

const isResponse = (value: MutableRequest | MutableResponse): value is MutableResponse => 'status' in value;

/** Starts a simulator and a server in front of each of its endpoints; the mutation's endpoint is broken. */
export async function startBrokenTarget(mutation: Mutation, seed = '1'): Promise<BrokenTarget> {
  const simulator = await startSimulator({ seed });
  const broken = mutation.endpoint ?? 'agent-server';
  const memory = new Map<string, unknown>();
  const fronts = new Map<Endpoint, { server: Server; url: string }>();

  for (const [endpoint, upstream] of Object.entries(simulator.urls) as [Endpoint, string][]) {
    const server = createServer((req, res) => {
      // Mutations change JSON; other bodies (multipart, gzip) pass through byte for byte.
      const json = !req.headers['content-type'] || /json/i.test(req.headers['content-type']);
      const forward = endpoint === broken && json ? mutate : passThrough;
      forward(upstream, req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: `broken target: ${(error as Error).message}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    fronts.set(endpoint, { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  }

  /** The simulator's info names its own URLs; a suite must reach the fronts instead. */
  function pointInfoAtFronts(res: MutableResponse): MutableResponse {
    const planes = Object.fromEntries([...fronts].map(([endpoint, front]) => [endpoint, front.url]));
    return { ...res, body: { ...object(res.body), planes } };
  }

  /** Bytes through unchanged (multipart and gzip bodies included), but for the info rewrite. */
  async function passThrough(upstream: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const response = await request(`${upstream}${req.url ?? '/'}`, { method: (req.method ?? 'GET') as 'GET', headers: forwardable(req.headers), body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const headers = answerable(response.headers);
    if ((req.url ?? '').startsWith('/__sim/info')) return reply(res, pointInfoAtFronts({ status: response.statusCode, headers, body: parse(await response.body.text(), headers['content-type']) }));
    res.writeHead(response.statusCode, headers);
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  }

  async function mutate(upstream: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const headers = forwardable(req.headers);
    let incoming: MutableRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body: parse(text, headers['content-type']) };
    if (mutation.request) {
      const changed = mutation.request(incoming, memory);
      if (isResponse(changed)) return reply(res, changed);
      incoming = changed;
    }
    const body = incoming.body === undefined ? undefined : typeof incoming.body === 'string' ? incoming.body : JSON.stringify(incoming.body);
    const response = await request(`${upstream}${incoming.path}`, { method: incoming.method as 'GET', headers: incoming.headers, body });
    const outHeaders = answerable(response.headers);
    if (/event-stream/.test(outHeaders['content-type'] ?? '') && mutation.stream) {
      const changed = mutation.stream(await response.body.text(), outHeaders);
      res.writeHead(response.statusCode, changed.headers);
      res.end(changed.text);
      return;
    }
    if (/event-stream/.test(outHeaders['content-type'] ?? '')) {
      res.writeHead(response.statusCode, outHeaders);
      for await (const chunk of response.body) res.write(chunk);
      res.end();
      return;
    }
    const answer = await response.body.text();
    let outgoing: MutableResponse = { status: response.statusCode, headers: outHeaders, body: parse(answer, outHeaders['content-type']) };
    if (incoming.path.startsWith('/__sim/info')) outgoing = pointInfoAtFronts(outgoing);
    if (mutation.response) outgoing = mutation.response(outgoing, incoming, memory);
    reply(res, outgoing);
  }

  return {
    url: fronts.get('agent-server')!.url,
    close: async () => {
      await Promise.all(
        [...fronts.values()].map(
          ({ server }) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
      await simulator.close();
    },
  };
}

const HOP = ['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'];

function forwardable(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string' && !HOP.includes(name)) out[name] = value;
  return out;
}

function answerable(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string' && !HOP.includes(name)) out[name] = value;
  return out;
}

const object = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

function parse(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (!/json/i.test(contentType ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function reply(res: ServerResponse, answer: MutableResponse): void {
  const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
