// A target broken on purpose: the simulator behind a small server that changes one
// behaviour (a mutation). The self-tests run the suites against it and check that
// exactly the rules the mutation breaks fail. Several mutations can share one broken target
// when each is tried on tests of its own: the front applies to each request (and each webhook
// delivery) the mutation of the test that made it, read from the test attribution the
// recording proxy forwards (run --forward-test-id).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify as toYaml } from 'yaml';
import { contract, planeOf, type Endpoint, type Plane } from '../../specs/contract.ts';
import { Simulator } from '../../simulator/simulator.ts';
import { EMBEDDED_HEADER_VARIABLE, EMBEDDED_OAUTH_PROVIDERS, EMBEDDED_RECEIVER_URL, freePort } from '../../harness/target.ts';
import { embeddedWebhookConfig } from '../../cli/embedded.ts';
import type { DeploymentConfigFile, RequestBatch, SpecMode } from '../../specs/types/simulator-admin.ts';
import type { AnswerOne } from '../../simulator/bulk-requests.ts';
import { ApiError } from '../../simulator/http/errors.ts';
import { TEST_HEADER } from '../../specs/evidence-protocol.ts';
import { SELF_TEST_RUN } from './run-cli.ts';

export interface MutableRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** The plane the request went to. */
  plane?: Plane;
  /** The contract's operationId for this method and path on its plane (undefined: none documented). */
  operation?: string;
  /** The operation's path parameters, decoded. */
  params?: Record<string, string>;
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
  /** The mutation touches rate limits: their suites (thousands of requests) run too, else they are left out. */
  rateLimits?: boolean;
  /**
   * It reacts to a secret the recordings redact (an API key), so replaying the clean run cannot show
   * what it reaches: it is tried on the tests of the rules it breaks.
   */
  keyedOnSecrets?: boolean;
  /** Rules the mutation breaks; the self-test expects exactly these to fail. */
  breaks: string[];
  /**
   * Rules its tests must leave without a verdict: their evidence is a read it breaks (one that answers
   * nothing, even of what exists), so a pass would be a pass on nothing. It is tried on their tests too.
   */
  notJudged?: string[];
  description: string;
  /** Changes a request on its way in, or answers it directly. */
  request?: (req: MutableRequest, memory: Map<string, unknown>) => MutableRequest | MutableResponse;
  /** Changes a response on its way out. */
  response?: (res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>) => MutableResponse;
  /** Changes an event-stream response (whole, once it ended) and its headers. */
  stream?: (text: string, headers: Record<string, string>) => { text: string; headers: Record<string, string> };
  /** Changes a webhook delivery on its way to the receiver (or holds it back a while). */
  delivery?: (req: MutableRequest) => MutableRequest | Promise<MutableRequest>;
  /** Changes the receiver's answer to a delivery, as the sending server sees it. */
  deliveryAnswer?: (res: MutableResponse) => MutableResponse;
  /**
   * The deployment configuration the target says it runs with, changed from the one it runs with:
   * a server that ignores a setting. The suites read it once per run, in no test, so the mutation
   * gets a broken target of its own (trial-groups.ts).
   */
  deploymentConfig?: (config: DeploymentConfigFile) => DeploymentConfigFile;
}

/**
 * The key under which a mutation's memory holds the API keys the simulator knows (its published
 * credentials): a broken target that tells a known key from a made-up one reads them there. A
 * replay of the clean run (affected.ts) has none, since recordings redact keys.
 */
export const KNOWN_API_KEYS = 'known-api-keys';

/** The mutation that applies to what a test sends or receives (undefined: none, pass through). */
type MutationRouter = (testId: string | undefined) => Mutation | undefined;

interface BrokenTarget {
  /** A target config file naming the fronts, the capabilities and the receiver's public URL. */
  config: string;
  /**
   * The options the conformance run needs: its receiver's port, the test attribution forwarded, and a
   * self-test's run options (a mutation fails tests on purpose, a variant may fail SHOULD rules).
   */
  args: string[];
  /** The environment it needs: the templated webhook header's variable. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The request with the documented operation it addresses on the endpoint's plane. */
export function addressed(endpoint: Endpoint, req: MutableRequest): MutableRequest {
  const plane = planeOf(endpoint);
  const match = contract().findOperation(plane, req.method, req.path);
  return match ? { ...req, plane, operation: match.operation.operationId, params: match.params } : { ...req, plane };
}

const isResponse = (value: MutableRequest | MutableResponse): value is MutableResponse => 'status' in value;

/**
 * Starts a simulator configured as the embedded one and a server in front of each of its
 * endpoints; a mutation breaks its endpoint, for every request, or (a router) for the requests
 * of the tests it is tried on. Webhooks reach the run's receiver through a relay, where a
 * mutation can break deliveries.
 */
export async function startBrokenTarget(
  mutations: Mutation | MutationRouter,
  seed = '1',
  /** Keys the target config declares besides the fronts' (a variant's not_shown_operations), or instead of the embedded simulator's (oauth_providers). */
  declares: Record<string, unknown> = {},
  /** Options of the simulator behind the fronts (a variant that is one of its modes: spec-only). */
  simulatorOptions: { spec?: SpecMode } = {},
): Promise<BrokenTarget> {
  const route: MutationRouter = typeof mutations === 'function' ? mutations : () => mutations;
  const receiverPort = await freePort();
  const relay = await listen(
    createServer((req, res) => {
      // A receiver that drops the connection is dropped on to the sender, as it would see it.
      relayDelivery(`http://127.0.0.1:${receiverPort}`, req, res).catch(() => res.destroy());
    }),
  );
  const env = { ...EMBEDDED_HEADER_VARIABLE };
  const args = ['--webhook-receiver-port', String(receiverPort), '--forward-test-id', ...SELF_TEST_RUN];
  // Quiet: deliveries still pending when a run ends fail, and would only clutter the self-test's output.
  const simulator = await Simulator.start({ seed, quiet: true, ...embeddedWebhookConfig(relay.url, env), ...simulatorOptions });
  const memories = new Map<Mutation, Map<string, unknown>>();
  const knownKeys = simulator.info().credentials.api_keys.map((k) => k.key);
  const memoryOf = (mutation: Mutation) => memories.get(mutation) ?? memories.set(mutation, new Map([[KNOWN_API_KEYS, knownKeys]])).get(mutation)!;
  const fronts = new Map<Endpoint, { server: Server; url: string }>();
  const hosts = new Map((Object.entries(simulator.urls) as [Endpoint, string][]).map(([endpoint, url]) => [endpoint, new URL(url).host]));

  /**
   * The simulator's answer to a request a front received, in process: the lane's one thread would
   * otherwise spend as much on a second HTTP hop per request as the simulator spends answering it.
   * It sees the Host its own socket would.
   */
  function upstream(
    endpoint: Endpoint,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array<ArrayBuffer> | undefined,
  ): Promise<Response> {
    return simulator.request(endpoint, path, { method, headers: { ...headers, host: hosts.get(endpoint)! }, body });
  }

  for (const endpoint of Object.keys(simulator.urls) as Endpoint[]) {
    const server = createServer((req, res) => {
      const mutation = route(testOf(req));
      delete req.headers[TEST_HEADER];
      const broken = mutation && (mutation.endpoint ?? 'agent-server') === endpoint ? mutation : undefined;
      const answered =
        req.method === 'POST' && req.url === BATCH_PATH
          ? batchThrough(endpoint, broken, req)
          : bodyOf(req).then((bytes) =>
              exchange(endpoint, json(req.headers) ? broken : undefined, req.method ?? 'GET', req.url ?? '/', forwardable(req.headers), bytes),
            );
      answered
        .then((exchanged) => write(res, exchanged))
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ detail: `broken target: ${(error as Error).message}` }));
        });
    });
    fronts.set(endpoint, await listen(server));
  }

  const declared = typeof mutations === 'function' ? undefined : mutations.deploymentConfig;

  /** The simulator's info names its own URLs; a suite must reach the fronts instead. It states the configuration the mutation declares. */
  function pointInfoAtFronts(res: MutableResponse): MutableResponse {
    const planes = Object.fromEntries([...fronts].map(([endpoint, front]) => [endpoint, front.url]));
    const body = object(res.body);
    const config = declared && body.deployment_config ? { deployment_config: declared(body.deployment_config as DeploymentConfigFile) } : {};
    return { ...res, body: { ...body, planes, ...config } };
  }

  /**
   * What the front answers one request: the simulator's answer, with the mutation (if any) applied to the request
   * and its answer. Without one, bytes pass through unchanged (multipart and gzip bodies included), but for the info rewrite.
   */
  async function exchange(
    endpoint: Endpoint,
    mutation: Mutation | undefined,
    method: string,
    path: string,
    headers: Record<string, string>,
    bytes: Buffer<ArrayBuffer> | undefined,
  ): Promise<Exchanged> {
    if (!mutation) {
      const response = await upstream(endpoint, method, path, headers, bytes);
      const answerHeaders = answerable(response.headers);
      if (path.startsWith('/__sim/info'))
        return {
          kind: 'answer',
          answer: pointInfoAtFronts({ status: response.status, headers: answerHeaders, body: parse(await response.text(), answerHeaders['content-type']) }),
        };
      return { kind: 'flow', status: response.status, headers: answerHeaders, response };
    }
    const memory = memoryOf(mutation);
    let incoming = addressed(endpoint, { method, path, headers, body: parse(bytes?.toString('utf8') ?? '', headers['content-type']) });
    if (mutation.request) {
      const changed = mutation.request(incoming, memory);
      if (isResponse(changed)) return { kind: 'answer', answer: changed };
      incoming = changed;
    }
    const response = await upstream(endpoint, incoming.method, incoming.path, incoming.headers, serialize(incoming.body));
    const outHeaders = answerable(response.headers);
    if (/event-stream/.test(outHeaders['content-type'] ?? '')) {
      if (!mutation.stream) return { kind: 'flow', status: response.status, headers: outHeaders, response };
      const changed = mutation.stream(await response.text(), outHeaders);
      return { kind: 'text', status: response.status, headers: changed.headers, text: changed.text };
    }
    let outgoing: MutableResponse = { status: response.status, headers: outHeaders, body: parse(await response.text(), outHeaders['content-type']) };
    if (incoming.path.startsWith('/__sim/info')) outgoing = pointInfoAtFronts(outgoing);
    if (mutation.response) outgoing = mutation.response(outgoing, incoming, memory);
    return { kind: 'answer', answer: outgoing };
  }

  /**
   * sendRequests made through the front: each request of the batch meets the mutation as one over HTTP would, so a
   * rate-limit fill sent in batches breaks as one sent request by request.
   */
  async function batchThrough(endpoint: Endpoint, mutation: Mutation | undefined, req: IncomingMessage): Promise<Exchanged> {
    const batch = JSON.parse((await bodyOf(req))?.toString('utf8') ?? '{}') as RequestBatch;
    const one: AnswerOne = async ({ method, path, headers = {} }) => {
      const exchanged = await exchange(endpoint, json(headers) ? mutation : undefined, method, path, headers, undefined);
      const status = exchanged.kind === 'answer' ? exchanged.answer.status : exchanged.status;
      const answerHeaders = exchanged.kind === 'answer' ? exchanged.answer.headers : exchanged.headers;
      const text = async () =>
        exchanged.kind === 'answer' ? (serialize(exchanged.answer.body) ?? '') : exchanged.kind === 'text' ? exchanged.text : exchanged.response.text();
      return { status, retryAfter: answerHeaders['retry-after'], text };
    };
    try {
      const answers = await simulator.answerBatch(endpoint, batch, { one });
      return { kind: 'answer', answer: { status: 200, headers: { 'content-type': 'application/json' }, body: { answers } } };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { kind: 'answer', answer: { status: error.status, headers: { 'content-type': 'application/json' }, body: { detail: error.message } } };
    }
  }

  async function relayDelivery(receiver: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A delivery belongs to the test whose receiver path it goes to (/apc-hooks/<test id>/…).
    const mutation = route(/^\/apc-hooks\/([^/?]+)/.exec(req.url ?? '')?.[1]);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = forwardable(req.headers);
    const delivery: MutableRequest = {
      method: req.method ?? 'POST',
      path: req.url ?? '/',
      headers,
      body: parse(Buffer.concat(chunks).toString('utf8'), headers['content-type']),
    };
    const sent = mutation?.delivery ? await mutation.delivery(delivery) : delivery;
    const response = await request(`${receiver}${sent.path}`, { method: sent.method as 'POST', headers: sent.headers, body: serialize(sent.body) });
    const answerHeaders = answerable(response.headers);
    const answer: MutableResponse = {
      status: response.statusCode,
      headers: answerHeaders,
      body: parse(await response.body.text(), answerHeaders['content-type']),
    };
    reply(res, mutation?.deliveryAnswer ? mutation.deliveryAnswer(answer) : answer);
  }

  // The agent server's front comes first: a config file's first plane is its admin URL.
  const planes = Object.fromEntries(
    [...fronts].sort(([a], [b]) => Number(b === 'agent-server') - Number(a === 'agent-server')).map(([endpoint, front]) => [endpoint, front.url]),
  );
  const config = join(mkdtempSync(join(tmpdir(), 'apc-broken-')), 'target.yaml');
  const name = typeof mutations === 'function' ? 'mutations tried on tests of their own' : mutations.description;
  // Named as the embedded simulator's config names them; a key declared `undefined` is left out (YAML writes none).
  const named = { capabilities: simulator.info().capabilities, webhook_receiver_url: EMBEDDED_RECEIVER_URL, oauth_providers: EMBEDDED_OAUTH_PROVIDERS };
  writeFileSync(config, toYaml({ name: `broken target (${name})`, planes, ...named, ...declares }));

  return {
    config,
    args,
    env,
    close: async () => {
      await Promise.all([...fronts.values(), relay].map(({ server }) => close(server)));
      await simulator.close();
    },
  };
}

async function listen(server: Server): Promise<{ server: Server; url: string }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function testOf(req: IncomingMessage): string | undefined {
  const value = req.headers[TEST_HEADER];
  return Array.isArray(value) ? value[0] : value;
}

const HOP = ['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'];

function forwardable(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string' && !HOP.includes(name)) out[name] = value;
  return out;
}

function answerable(headers: Record<string, string | string[] | undefined> | Headers): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) if (typeof value === 'string' && !HOP.includes(name)) out[name] = value;
  return out;
}

/** A body as it comes, chunk by chunk (an event stream as its events are written). */
async function pipeBody(response: Response, res: ServerResponse): Promise<void> {
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

const object = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** A body as mutations see it: parsed JSON, else the text (undefined when empty). */
export function parse(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (!/json/i.test(contentType ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A body as sent: text as is, anything else as JSON. */
function serialize(body: unknown): string | undefined {
  return body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
}

/** What a front answers: whole (a mutation's, or the info rewrite's), a stream a mutation changed, or the simulator's body as it flows. */
type Exchanged =
  | { kind: 'answer'; answer: MutableResponse }
  | { kind: 'text'; status: number; headers: Record<string, string>; text: string }
  | { kind: 'flow'; status: number; headers: Record<string, string>; response: Response };

async function write(res: ServerResponse, exchanged: Exchanged): Promise<void> {
  if (exchanged.kind === 'answer') return reply(res, exchanged.answer);
  res.writeHead(exchanged.status, exchanged.headers);
  if (exchanged.kind === 'text') res.end(exchanged.text);
  else await pipeBody(exchanged.response, res);
}

/** The request's body, or undefined when it has none. */
async function bodyOf(req: IncomingMessage): Promise<Buffer<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Buffer.concat(chunks) : undefined;
}

/** Mutations change JSON; other bodies (multipart, gzip) pass through byte for byte. */
const json = (headers: Record<string, string | string[] | undefined>) => {
  const type = headers['content-type'];
  return !type || /json/i.test(String(type));
};

const BATCH_PATH = contract().adminOperation('sendRequests').path;

function reply(res: ServerResponse, answer: MutableResponse): void {
  const text = serialize(answer.body) ?? '';
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
