// HAR output: the streamed file and the whole log describe the same exchanges, and the streamed
// file is a complete document once closed, with or without entries. A file that cannot be opened
// throws at once; one whose writes fail (a full disk) says so once and throws at close. A file
// slower than the exchanges is never written past its high-water mark, and what the writer holds
// stays under its bound.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harText, HarWriter, toHar } from './har.ts';
import type { Exchange } from '../../specs/evidence-protocol.ts';

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

/**
 * A file that takes 16 bytes at a time and `delayMs` to write each chunk. It counts the writes
 * made while it asked to be drained, and the most text it ever held.
 */
function slowFile(delayMs: number) {
  const file = { text: '', writesWhileFull: 0, mostHeld: 0 };
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, done) {
      setTimeout(() => {
        file.text += chunk.toString();
        done();
      }, delayMs);
    },
  });
  const write = stream.write.bind(stream) as (chunk: string) => boolean;
  stream.write = ((chunk: string) => {
    if (stream.writableNeedDrain) file.writesWhileFull++;
    const more = write(chunk);
    file.mostHeld = Math.max(file.mostHeld, stream.writableLength);
    return more;
  }) as typeof stream.write;
  return { file, stream };
}

test('a slow file is written only after it drains, and gets every entry in order', async () => {
  const { file, stream } = slowFile(30);
  const writer = new HarWriter(stream);
  const exchanges = Array.from({ length: 40 }, (_, n) => exchange(n));
  // Bursts of exchanges, each longer apart than a batch waits (20 ms) but sooner than the file drains.
  for (let n = 0; n < exchanges.length; n++) {
    writer.add(exchanges[n]!);
    if (n % 5 === 4) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await writer.close();
  expect(file.writesWhileFull).toBe(0);
  expect(writer.written).toBe(40);
  expect(writer.dropped).toBe(0);
  expect(file.text).toBe(harText(toHar(exchanges)));
});

test('a burst past what the writer may hold leaves the later exchanges out, counted in a still valid log', async () => {
  const { file, stream } = slowFile(1);
  const entryBytes = JSON.stringify(toHar([exchange(10)]).log.entries[0]).length + 2;
  const bound = 10 * entryBytes;
  const writer = new HarWriter(stream, undefined, bound);
  // One burst, with no time for the file to take any of it.
  const exchanges = Array.from({ length: 100 }, (_, n) => exchange(n + 10));
  for (const e of exchanges) writer.add(e);
  expect(writer.written).toBeGreaterThanOrEqual(9);
  expect(writer.written).toBeLessThanOrEqual(10);
  expect(writer.written + writer.dropped).toBe(100);
  // Later exchanges, once the file has caught up, are recorded again.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const late = exchange(200);
  writer.add(late);
  await writer.close();
  expect(file.writesWhileFull).toBe(0);
  expect(file.mostHeld).toBeLessThanOrEqual(bound);
  const log = JSON.parse(file.text).log;
  expect(log.entries).toEqual(toHar([...exchanges.slice(0, writer.written - 1), late]).log.entries);
  expect(log.comment).toBe(`${writer.dropped} exchanges not recorded: the file could not keep up`);
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
