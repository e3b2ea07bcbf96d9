// A target broken on purpose: the simulator behind a small server that changes one
// behaviour (a mutation). The self-tests run the suites against it and check that
// exactly the rules the mutation breaks fail.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Endpoint } from '../../specs/contract.ts';
import { startSimulator, type Simulator } from '../../simulator/simulator.ts';

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

/** Starts a simulator and, in front of its agent server, the mutation. */
export async function startBrokenTarget(mutation: Mutation, seed = '1'): Promise<BrokenTarget> {
  const simulator = await startSimulator({ seed });
  const upstream = simulator.urls['agent-server']!;
  const memory = new Map<string, unknown>();
  let self = '';
  const server = createServer((req, res) => {
    forward(req, res).catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: `broken target: ${(error as Error).message}` }));
    });
  });

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    let incoming: MutableRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body: parse(text, headers['content-type']) };
    if (mutation.request) {
      const changed = mutation.request(incoming, memory);
      if (isResponse(changed)) return reply(res, changed);
      incoming = changed;
    }
    const body = incoming.body === undefined ? undefined : typeof incoming.body === 'string' ? incoming.body : JSON.stringify(incoming.body);
    const response = await request(`${upstream}${incoming.path}`, { method: incoming.method as 'GET', headers: incoming.headers, body });
    const outHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (typeof value === 'string' && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) outHeaders[name] = value;
    }
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
    if (incoming.path.startsWith('/__sim/info')) outgoing = pointInfoAtSelf(outgoing);
    if (mutation.response) outgoing = mutation.response(outgoing, incoming, memory);
    reply(res, outgoing);
  }

  /** The simulator's info names its own URLs; a suite must reach the broken one instead. */
  function pointInfoAtSelf(res: MutableResponse): MutableResponse {
    const body = res.body as { planes?: Partial<Record<Endpoint, string>> };
    return { ...res, body: { ...body, planes: { 'agent-server': self } } };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await (simulator as Simulator).close();
    },
  };
}

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
