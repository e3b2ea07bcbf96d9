// HAR output: the streamed file and the whole log describe the same exchanges, and the streamed
// file is a complete document once closed, with or without entries. A file that cannot be opened
// throws at once; one whose writes fail (a full disk) says so once and throws at close.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harText, HarWriter, toHar } from './har.ts';
import type { Exchange } from './recording-proxy.ts';

const exchange = (n: number): Exchange => ({
  id: `agent-server-${n}`,
  plane: 'agent-server',
  base: 'http://127.0.0.1:8123',
  operation: 'getThread',
  startedDateTime: '2026-01-01T00:00:00.000Z',
  time: n,
  request: { method: 'GET', url: `/threads/t${n}?limit=2`, headers: [['x-api-key', 'REDACTED']] },
  response: { status: 200, headers: [['content-type', 'application/json']], body: `{"n":${n}}`, contentType: 'application/json' },
  violations: [],
});

test('a streamed HAR file holds the same log as toHar, entry for entry', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'apc-har-')), 'out.har');
  const writer = await HarWriter.open(file);
  const exchanges = [exchange(1), exchange(2), exchange(3)];
  for (const e of exchanges) writer.add(e);
  await writer.close();
  expect(writer.written).toBe(3);
  const written = JSON.parse(readFileSync(file, 'utf8'));
  expect(written).toEqual(toHar(exchanges));
  expect(written.log.entries[1].request.url).toBe('http://127.0.0.1:8123/threads/t2?limit=2');
  expect(written.log.entries[1].request.queryString).toEqual([{ name: 'limit', value: '2' }]);
  // The whole log as text has the same layout as the streamed file: one entry a line.
  expect(harText(toHar(exchanges))).toBe(readFileSync(file, 'utf8'));
  expect(JSON.parse(harText(toHar([]))).log.entries).toEqual([]);
});

test('a streamed HAR file with no exchanges is a valid, empty log', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'apc-har-')), 'empty.har');
  const writer = await HarWriter.open(file);
  await writer.close();
  expect(JSON.parse(readFileSync(file, 'utf8')).log.entries).toEqual([]);
});

test('a HAR file that cannot be opened throws at once', async () => {
  await expect(HarWriter.open(join(tmpdir(), 'no-such-folder', 'out.har'))).rejects.toThrow(/ENOENT/);
});

test('a write that fails (a full disk: /dev/full) is reported once, later exchanges are dropped, and close throws it', async () => {
  const errors: Error[] = [];
  const writer = await HarWriter.open('/dev/full', (error) => errors.push(error));
  writer.add(exchange(1));
  await expect.poll(() => errors.length).toBe(1);
  writer.add(exchange(2));
  await expect(writer.close()).rejects.toThrow(/ENOSPC/);
  expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
});

test('a webhook delivery is an entry like any other, marked _delivery, its URL as the target addressed the receiver', () => {
  const delivery: Exchange = {
    ...exchange(4),
    id: 'webhook:/apc-hooks/t/trigger#1',
    delivery: true,
    base: 'https://hooks.example.com/apc',
    operation: undefined,
    request: { method: 'POST', url: '/apc-hooks/t/trigger?token=REDACTED', headers: [['content-type', 'application/json']], body: '{}' },
  };
  const [proxied, delivered] = toHar([exchange(1), delivery]).log.entries;
  expect(proxied).not.toHaveProperty('_delivery');
  expect(delivered).toMatchObject({
    _id: 'webhook:/apc-hooks/t/trigger#1',
    _delivery: true,
    request: { url: 'https://hooks.example.com/apc/apc-hooks/t/trigger?token=REDACTED' },
  });
});
