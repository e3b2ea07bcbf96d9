// Principle 5 at the HTTP layer: bad input gets a 4xx in the documented shape, never a 5xx.
// In process (sim.request), with no port; one test checks the same answers over a socket.
import { expect, test } from '@playwright/test';
import { rawExchange } from '../../tests/raw-socket.ts';
import { Simulator } from '../simulator.ts';

const sim = new Simulator({ seed: 'http', quiet: true });

const send = (method: string, path: string, body?: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  sim.request('agent-server', path, { method, body, headers });

test('malformed JSON answers 422 {detail} and creates nothing', async () => {
  const res = await send('POST', '/threads', '{"metadata":');
  expect(res.status).toBe(422);
  expect(await res.json()).toMatchObject({ detail: expect.stringContaining('Invalid JSON') });
});

test('a body that is not JSON answers 415', async () => {
  const res = await send('POST', '/threads', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
  expect(res.status).toBe(415);
});

test('an oversized body answers 413', async () => {
  const res = await send('POST', '/threads', JSON.stringify({ metadata: { big: 'x'.repeat(17 * 1024 * 1024) } }));
  expect(res.status).toBe(413);
});

test('an unknown route answers 404 and a known route with another method 405 with Allow', async () => {
  expect((await send('GET', '/nowhere')).status).toBe(404);
  const res = await send('DELETE', '/threads');
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toContain('POST');
  // The contract is what documents the path's methods: the spec may not list the path at all.
  expect(((await res.json()) as { detail: string }).detail).toMatch(/the contract documents POST there/);
});

test('a 405 names what the contract documents there, not the spec (whose tables list no /sessions but DELETE)', async () => {
  const res = await sim.request('platform-api', '/api/v1/sessions', { method: 'PUT' });
  expect([res.status, await res.json()]).toEqual([
    405,
    { detail: 'Method PUT not allowed on /api/v1/sessions: the contract documents GET, POST, DELETE there' },
  ]);
});

const HEADER = 'x-apc-request-violations';
const violations = (res: Response) => JSON.parse(decodeURIComponent(res.headers.get(HEADER) ?? 'null')) as unknown;

test('a query parameter the operation does not document is answered, and named in the violations header', async () => {
  const own = new Simulator({ seed: 'query', quiet: true });
  const send = (method: string, path: string, body?: string) =>
    own.request('agent-server', path, { method, body, headers: { 'content-type': 'application/json' } });
  const thread = (await (await send('POST', '/threads', '{}')).json()) as { thread_id: string };
  const res = await send('GET', `/threads/${thread.thread_id}?limt=3&limt=4`);
  expect(res.status).toBe(200);
  expect(violations(res)).toEqual([
    { in: 'query', at: 'limt', type: 'extra_forbidden', message: "unknown query parameter 'limt': the contract documents none here" },
  ]);
  // A documented one is no violation; a typo of one is named with the fix.
  const runs = await send('GET', `/threads/${thread.thread_id}/runs?limit=3&ofset=1`);
  expect(runs.status).toBe(200);
  expect(violations(runs)).toEqual([{ in: 'query', at: 'ofset', type: 'extra_forbidden', message: "unknown query parameter 'ofset': did you mean 'offset'?" }]);
});

test("strict mode refuses an undocumented query parameter with 422 naming it, in each plane's error style", async () => {
  const strict = new Simulator({ seed: 'http', quiet: true, strict: true });
  const refused = await strict.request('agent-server', '/threads?wait=1', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  expect([refused.status, await refused.json()]).toEqual([
    422,
    { detail: "Invalid request: query.wait: unknown query parameter 'wait': the contract documents none here" },
  ]);
  const key = strict.info().credentials.api_keys.find((k) => k.role === 'primary')!.key;
  const sessions = await strict.request('platform-api', '/api/v1/sessions?nme=x', { headers: { 'x-api-key': key } });
  expect([sessions.status, await sessions.json()]).toEqual([
    422,
    { detail: [{ loc: ['query', 'nme'], msg: "unknown query parameter 'nme': did you mean 'name'?", type: 'extra_forbidden' }] },
  ]);
});

test('request validation names the field and the path', async () => {
  const res = await send('POST', '/threads/search', JSON.stringify({ limit: 'x', status: 'sleeping' }));
  expect(res.status).toBe(422);
  const { detail } = (await res.json()) as { detail: string };
  expect(detail).toContain('body.limit');
  expect(detail).toContain('body.status');
});

test('the admin path moves the virtual clock and resets state with the same ids', async () => {
  const first = (await (await send('POST', '/threads', '{}')).json()) as { thread_id: string; created_at: string };
  const advanced = (await (await send('POST', '/__sim/clock/advance', JSON.stringify({ seconds: 60 }))).json()) as { now: string };
  expect(Date.parse(advanced.now) - Date.parse(first.created_at)).toBe(60_000);
  expect((await send('POST', '/__sim/clock/advance', JSON.stringify({ ms: -1 }))).status).toBe(422);
  await send('POST', '/__sim/reset', '{}');
  const again = (await (await send('POST', '/threads', '{}')).json()) as { thread_id: string; created_at: string };
  expect(again).toEqual(first);
});

test('over a socket, the listener answers as the in-process request does', async () => {
  const served = await Simulator.start({ seed: 'http', quiet: true });
  try {
    const res = await fetch(`${served.urls['agent-server']}/threads`, {
      method: 'POST',
      body: '{"metadata":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    const inProcess = await new Simulator({ seed: 'http', quiet: true }).request('agent-server', '/threads', {
      method: 'POST',
      body: '{"metadata":',
      headers: { 'content-type': 'application/json' },
    });
    expect(await res.json()).toEqual(await inProcess.json());
  } finally {
    await served.close();
  }
});

test('over a socket, request heads over 16 KiB answer 431 and unparsable requests 400, both {detail}', async () => {
  const served = await Simulator.start({ seed: 'http', quiet: true });
  const url = new URL(served.urls['agent-server']!);
  try {
    expect((await fetch(`${url.origin}/ok`, { headers: { 'x-big': 'a'.repeat(12 * 1024) } })).status).toBe(200);
    for (const [bytes, status, detail] of [
      [`GET /threads HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`, 431, 'limit of 16384 bytes'],
      ['FROBNICATE /threads HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'Malformed HTTP request'],
    ] as const) {
      const answer = await rawExchange(url.origin, bytes);
      expect(answer.slice(0, 12)).toBe(`HTTP/1.1 ${status}`);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ detail: expect.stringContaining(detail) });
    }
  } finally {
    await served.close();
  }
});

test('a stream reply arrives in process as a readable body', async () => {
  const local = new Simulator({ seed: 'stream', quiet: true });
  const thread = (await (
    await local.request('agent-server', '/threads', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
  ).json()) as { thread_id: string };
  const res = await local.request('agent-server', `/threads/${thread.thread_id}/runs/stream`, {
    method: 'POST',
    body: JSON.stringify({ assistant_id: 'agent', input: { topic: 'x' } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  // text() resolves only once the handler ends the stream.
  const text = await res.text();
  expect(text).toMatch(/^event: metadata\n/);
  expect(text).toContain('echo: x');
});
