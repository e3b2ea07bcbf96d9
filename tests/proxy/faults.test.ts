// The recording proxy survives a target that misbehaves and a client that gives up: it answers
// what it can, records each failure (in the HAR file too), serves the next request, and leaks
// no socket. Each case has a hand-written target on 127.0.0.1 that misbehaves in that one way.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarWriter } from '../../harness/proxy/har.ts';
import { RecordingProxy } from '../../harness/proxy/recording-proxy.ts';
import { DROPPED_TEXT } from '../../specs/evidence-protocol.ts';

const THREAD = '/threads/00000000-0000-4000-8000-000000000000';
const STREAM = `${THREAD}/runs/stream`;

interface Rig {
  proxy: RecordingProxy;
  target: Server;
  har: HarWriter;
  harFile: string;
}

/** A target whose /ok answers `{"ok": true}` and whose other paths misbehave as `fault` does; a proxy in front, writing a HAR. */
async function rig(fault: (req: IncomingMessage, res: ServerResponse) => void, options: { timeoutMs?: number } = {}): Promise<Rig> {
  const target = createServer((req, res) => {
    if (req.url === '/ok') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    fault(req, res);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  const harFile = join(mkdtempSync(join(tmpdir(), 'apc-faults-')), 'exchanges.har');
  const har = await HarWriter.open(harFile);
  const proxy = new RecordingProxy({
    plane: 'agent-server',
    target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
    onExchange: (e) => har.add(e),
    ...options,
  });
  await proxy.start();
  return { proxy, target, har, harFile };
}

interface Answer {
  status: number;
  body: string;
  /** Whether the whole body arrived (false: the connection broke off mid-body). */
  complete: boolean;
}

/** One request on a connection of its own, closed after the answer (so an open connection afterwards is a leak). */
function send(rig: Rig, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${rig.proxy.url}${path}`, { method, agent: false, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('error', () => {});
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body: text, complete: res.complete }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const connections = (server: Server) => new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));

/**
 * Waits until neither the proxy nor the target holds a connection. Each request says
 * `Connection: close`, and the proxy forwards that, so a connection still open once the case
 * settles is one the proxy leaked (a client never answered, a request to the target never let go).
 */
async function settles(rig: Rig): Promise<void> {
  await expect.poll(async () => ({ proxy: await rig.proxy.connections(), target: await connections(rig.target) })).toEqual({ proxy: 0, target: 0 });
}

/** The proxy still serves the next request and settles again; then it stops, and its HAR file is read back. */
async function nextThenHar(rig: Rig) {
  const next = await send(rig, 'GET', '/ok');
  expect(next, 'the proxy still serves the next request').toMatchObject({ status: 200, body: '{"ok":true}' });
  await settles(rig);
  await rig.proxy.close();
  await rig.har.close();
  await new Promise((resolve) => rig.target.close(resolve));
  const entries = (JSON.parse(readFileSync(rig.harFile, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
  expect(entries.at(-1)?.request.url).toMatch(/\/ok$/);
  return entries[0];
}

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number; content: { text: string }; _error?: string };
}

/** Writes a JSON head and part of the body, then resets the connection. */
function resetMidBody(contentType: string, part: string) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': contentType, ...(contentType.includes('json') ? { 'content-length': '1000' } : {}) });
    res.write(part, () => res.socket?.resetAndDestroy());
  };
}

test('a target that resets mid-body (JSON): 502 {"detail"}, recorded with its error', async () => {
  const r = await rig(resetMidBody('application/json', '{"thread_id": "00000000-'));
  const answer = await send(r, 'GET', THREAD);
  expect(answer.status).toBe(502);
  expect((JSON.parse(answer.body) as { detail: string }).detail).toContain(DROPPED_TEXT);
  await expect.poll(() => r.proxy.exchanges.length).toBe(1);
  expect(r.proxy.exchanges[0]).toMatchObject({ operation: 'getThread', response: { status: 502 }, error: expect.stringContaining(DROPPED_TEXT) });
  await settles(r);
  const entry = await nextThenHar(r);
  expect(entry.response).toMatchObject({ status: 502, _error: expect.stringContaining(DROPPED_TEXT) });
});

test('a target that resets mid-stream (text/event-stream): the client gets what came and a cut stream, recorded with its error', async () => {
  const r = await rig(resetMidBody('text/event-stream', 'event: metadata\ndata: {"run_id":"r"}\n\n'));
  const answer = await send(r, 'POST', STREAM, '{"assistant_id":"agent"}');
  expect(answer).toMatchObject({ status: 200, complete: false });
  expect(answer.body).toContain('event: metadata');
  await expect.poll(() => r.proxy.exchanges.length).toBe(1);
  expect(r.proxy.exchanges[0]).toMatchObject({ response: { status: 200 }, error: expect.stringContaining('in the middle of its answer') });
  expect(r.proxy.exchanges[0].response.body).toContain('event: metadata');
  await settles(r);
  const entry = await nextThenHar(r);
  expect(entry.response).toMatchObject({ status: 200, _error: expect.stringContaining('in the middle of its answer') });
  expect(entry.response.content.text).toContain('event: metadata');
});

test('a slow target: its answer arrives whole', async () => {
  const r = await rig((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"slow":true}');
    }, 300);
  });
  const answer = await send(r, 'GET', '/slow');
  expect(answer).toEqual({ status: 200, body: '{"slow":true}', complete: true });
  await settles(r);
  const entry = await nextThenHar(r);
  expect(entry.response.status).toBe(200);
  expect(entry.response._error).toBeUndefined();
});

test('a target silent past the timeout: 504 {"detail"}, recorded, and the proxy lets go of the connection', async () => {
  const held: ServerResponse[] = [];
  const r = await rig((_req, res) => held.push(res), { timeoutMs: 200 });
  const answer = await send(r, 'GET', THREAD);
  expect(answer.status).toBe(504);
  expect((JSON.parse(answer.body) as { detail: string }).detail).toContain('did not answer in time');
  await settles(r);
  const entry = await nextThenHar(r);
  expect(entry.response).toMatchObject({ status: 504, _error: expect.stringContaining('did not answer in time') });
  expect(held).toHaveLength(1);
});

test('a target that answers 500 and 503: passed through as answered, and recorded', async () => {
  let calls = 0;
  const r = await rig((_req, res) => {
    const status = ++calls === 1 ? 500 : 503;
    res.writeHead(status, { 'content-type': 'application/json', ...(status === 503 ? { 'retry-after': '1' } : {}) });
    res.end(JSON.stringify({ detail: `down ${status}` }));
  });
  expect(await send(r, 'GET', THREAD)).toEqual({ status: 500, body: '{"detail":"down 500"}', complete: true });
  expect(await send(r, 'GET', THREAD)).toEqual({ status: 503, body: '{"detail":"down 503"}', complete: true });
  await settles(r);
  const first = await nextThenHar(r);
  expect(first.response).toMatchObject({ status: 500, content: { text: '{"detail":"down 500"}' } });
  expect(r.proxy.exchanges.map((e) => e.response.status)).toEqual([500, 503, 200]);
});

test('a client that gives up while the target is slow: recorded, and the proxy abandons the request to the target', async () => {
  let arrived!: () => void;
  const atTarget = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  // The target never answers: only the proxy letting go closes its connection.
  const r = await rig(() => arrived());
  const req = request(`${r.proxy.url}${THREAD}`, { agent: false });
  req.on('error', () => {});
  req.end();
  await atTarget;
  req.destroy();
  await settles(r);
  expect(r.proxy.exchanges[0]).toMatchObject({ operation: 'getThread', response: { status: 0 }, error: expect.stringContaining('client closed') });
  const entry = await nextThenHar(r);
  expect(entry.response).toMatchObject({ status: 0, _error: expect.stringContaining('client closed') });
});
