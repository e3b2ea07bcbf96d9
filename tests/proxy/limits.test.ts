// The recording proxy's limits, and requests no client should send: each gets a clear 4xx in the
// documented shape ({"detail": "..."}) or is recorded as broken off, and the proxy serves on.
import { expect, test } from '@playwright/test';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RecordingProxy } from '../../harness/proxy/recording-proxy.ts';
import { rawExchange as raw } from '../raw-socket.ts';

let target: Server;
let targetUrl: string;
/** Bytes of request body the target received, in all. */
let received = 0;

test.beforeAll(async () => {
  // Heads larger than the proxy's default pass this target: a 431 here is the proxy's.
  target = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    req.on('end', () => {
      const big = req.url === '/big-answer';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(big ? JSON.stringify({ text: 'x'.repeat(4096) }) : JSON.stringify({ method: req.method, url: req.url }));
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const detailOf = (answer: string) => (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { detail: string }).detail;

async function withProxy(options: { maxBodyBytes?: number; maxHeaderBytes?: number }, run: (proxy: RecordingProxy) => Promise<void>): Promise<void> {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: targetUrl, ...options });
  await proxy.start();
  try {
    await run(proxy);
    const after = await fetch(`${proxy.url}/ok`);
    expect(after.status, 'the proxy still answers').toBe(200);
  } finally {
    await proxy.close();
  }
}

test('a body declared over --max-body-bytes: 413 {"detail"}, recorded, never forwarded', async () => {
  await withProxy({ maxBodyBytes: 1024 }, async (proxy) => {
    const before = received;
    const res = await fetch(`${proxy.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(2048) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { detail: string }).detail).toContain('limit of 1024 bytes');
    expect(received).toBe(before);
    expect(proxy.exchanges[0]).toMatchObject({ operation: 'createThread', response: { status: 413 }, error: expect.stringContaining('1024') });
  });
});

test('a chunked body that grows over --max-body-bytes: 413, and the target gets no more of it', async () => {
  await withProxy({ maxBodyBytes: 300 * 1024 }, async (proxy) => {
    const before = received;
    // Kept alive, the connection is drained rather than closed under the client still sending.
    const agent = new Agent({ keepAlive: true });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${proxy.url}/threads`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      // No content-length: the size shows only as it arrives.
      for (let i = 0; i < 16; i++) req.write('x'.repeat(32 * 1024));
      req.end();
    });
    expect(answer.status).toBe(413);
    expect((JSON.parse(answer.body) as { detail: string }).detail).toContain(`limit of ${300 * 1024} bytes`);
    agent.destroy();
    expect(received - before).toBeLessThan(16 * 32 * 1024);
    expect(proxy.exchanges[0]).toMatchObject({ response: { status: 413 } });
    // The recording keeps its first 256 KiB, not all that came.
    expect(proxy.exchanges[0].request.body?.slice(256 * 1024)).toMatch(/^… \[\d+ more bytes not recorded\]$/);
  });
});

test('a target answer over --max-body-bytes is not held to validate: 502 {"detail"}, recorded', async () => {
  await withProxy({ maxBodyBytes: 1024 }, async (proxy) => {
    const res = await fetch(`${proxy.url}/big-answer`);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toContain("answer exceeds the proxy's limit of 1024 bytes");
    expect(proxy.exchanges[0].error).toContain('1024');
  });
});

test('request headers over --max-header-bytes: 431 {"detail"}; under it they pass', async () => {
  await withProxy({ maxHeaderBytes: 8 * 1024 }, async (proxy) => {
    const small = await fetch(`${proxy.url}/threads`, { headers: { 'x-big': 'a'.repeat(6 * 1024) } });
    expect(small.status).toBe(200);
    const answer = await raw(proxy.url, `GET /threads HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10 * 1024)}\r\n\r\n`);
    expect(statusOf(answer)).toBe(431);
    expect(detailOf(answer)).toContain('8192 bytes');
  });
  // The default, 32 KiB, lets through what Node's default (16 KiB) would refuse.
  await withProxy({}, async (proxy) => {
    expect((await fetch(`${proxy.url}/threads`, { headers: { 'x-big': 'a'.repeat(20 * 1024) } })).status).toBe(200);
    expect(statusOf(await raw(proxy.url, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40 * 1024)}\r\n\r\n`))).toBe(431);
  });
});

test('no request, however malformed, crashes the proxy: each gets an answer or a recorded error', async () => {
  await withProxy({}, async (proxy) => {
    const refused: [string, string | Buffer][] = [
      ['an absurd method', 'FROBNICATE /threads HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a control byte in the path', 'GET /thr\x01eads HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a space in a header name', 'GET /threads HTTP/1.1\r\nHost: x\r\nX Bad: v\r\n\r\n'],
      ['a NUL in a header value', 'GET /threads HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n'],
      ['a bad content-length', 'POST /threads HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n{}'],
      ['not HTTP at all', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])],
    ];
    for (const [what, bytes] of refused) {
      const answer = await raw(proxy.url, bytes);
      expect(statusOf(answer), what).toBe(400);
      expect(detailOf(answer), what).toContain('Malformed HTTP request');
    }
    const forwarded: [string, string][] = [
      ['malformed percent-encoding', 'GET /threads/%00%ff?%zz=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
      ['an absolute-form URL', 'GET http://elsewhere.example/threads HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
      ['the asterisk form', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
      ['a rare method', 'PURGE /threads HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
      ['bytes over 0x7f in a header value', 'GET /threads HTTP/1.1\r\nHost: x\r\nX-Odd: caf\xe9\r\nConnection: close\r\n\r\n'],
    ];
    for (const [what, bytes] of forwarded) {
      const answer = await raw(proxy.url, Buffer.from(bytes, 'latin1'));
      expect(statusOf(answer), `${what}: ${answer}`).toBeGreaterThanOrEqual(200);
      expect(statusOf(answer), `${what}: ${answer}`).toBeLessThan(500);
    }
    // A body longer than declared: the rest is no request at all (Node answers it at once, as its own server would).
    const longer = await raw(proxy.url, 'POST /threads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}garbage\r\n\r\n');
    expect(longer).toContain('HTTP/1.1 400');
    expect(longer).not.toMatch(/HTTP\/1\.1 5/);
    // A client that gives up mid-body: recorded as such.
    await raw(proxy.url, 'POST /threads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"meta', { thenClose: true });
    await expect.poll(() => proxy.exchanges.find((e) => e.response.status === 0)?.error).toContain('client closed');
    await expect.poll(() => proxy.connections()).toBe(0);
  });
});
