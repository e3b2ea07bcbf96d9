// Recordings as HAR 1.2: the whole log at once (a conformance run's report), or streamed to a
// file one entry at a time (the standalone proxy, whose sessions can be long: its memory
// must not grow with the number of exchanges).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { TOOL } from '../tool.ts';
import type { Exchange } from '../../specs/evidence-protocol.ts';

/** The recordings as a HAR 1.2 log, each URL absolute (the target's base URL and the path). */
export function toHar(exchanges: Exchange[], creator = TOOL) {
  return { log: { version: '1.2', creator, entries: exchanges.map(harEntry) } };
}

/**
 * A HAR log as text, one entry a line: indented, a run's log is half as large again, and a viewer
 * needs no indentation (HarWriter writes the same layout).
 */
export function harText(har: { log: { entries: unknown[] } }): string {
  const { entries, ...head } = har.log;
  return `{"log":${JSON.stringify(head).slice(0, -1)},"entries":[\n${entries.map((e) => JSON.stringify(e)).join(',\n')}\n]}}\n`;
}

/** One exchange as a HAR entry; the underscored fields are ours (operation, test, violations, whether it is a webhook delivery). */
function harEntry(e: Exchange) {
  return {
    startedDateTime: e.startedDateTime,
    time: e.time,
    request: {
      method: e.request.method,
      url: `${e.base}${e.request.url}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: e.request.headers.map(([name, value]) => ({ name, value })),
      queryString: queryString(e.request.url),
      ...(e.request.body !== undefined
        ? { postData: { mimeType: e.request.headers.find(([n]) => n === 'content-type')?.[1] ?? '', text: e.request.body } }
        : {}),
      headersSize: -1,
      bodySize: e.request.body?.length ?? 0,
    },
    response: {
      status: e.response.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: e.response.headers.map(([name, value]) => ({ name, value })),
      content: { size: e.response.body?.length ?? 0, mimeType: e.response.contentType ?? '', text: e.response.body ?? '' },
      redirectURL: '',
      headersSize: -1,
      bodySize: e.response.body?.length ?? 0,
      // Why the exchange ended without the target's full answer, where Chromium's HAR says it too.
      ...(e.error !== undefined ? { _error: e.error } : {}),
    },
    cache: {},
    timings: { send: 0, wait: e.time, receive: 0 },
    _id: e.id,
    _plane: e.plane,
    _operation: e.operation,
    _test: e.test,
    ...(e.delivery ? { _delivery: true } : {}),
    _violations: e.violations,
  };
}

function queryString(url: string): { name: string; value: string }[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  return [...new URLSearchParams(url.slice(q + 1))].map(([name, value]) => ({ name, value }));
}

/** Entries are written to the file once this much text has gathered, or this long after the first of them. */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 20;
/**
 * Most text held in memory for the file (the gathered entries and what the stream has not yet
 * written): an entry recorded past it is left out, not queued, so a disk slower than the traffic
 * cannot grow the proxy's memory. An entry is a few MiB at most (bodies are recorded cut at 256 KiB).
 */
const MAX_HELD_BYTES = 16 * 1024 * 1024;

/**
 * Writes a HAR file as exchanges complete: the log's head at once, each entry as it comes, the
 * tail on close. Until then the file is an unfinished document; close() makes it a valid one.
 */
export class HarWriter {
  private count = 0;
  /** Exchanges left out because MAX_HELD_BYTES was reached; the log's comment counts them. */
  private droppedCount = 0;
  /**
   * Entries not yet handed to the file: written together, FLUSH_BYTES or FLUSH_MS at a time,
   * not with a write each (a file write costs a busy proxy about as much as recording an exchange).
   */
  private batch = '';
  private batchBytes = 0;
  private flushTimer?: NodeJS.Timeout;
  /** The stream is over its high-water mark: the batch waits for 'drain', which writes it. */
  private draining = false;
  /** The first write error (a full disk): the file stops there, and close() throws it. */
  private failure?: Error;

  /** A log written to `out` (a file's stream: see open()), holding at most `maxHeldBytes` in memory. */
  constructor(
    private readonly out: Writable,
    onError: (error: Error) => void = () => {},
    private readonly maxHeldBytes = MAX_HELD_BYTES,
  ) {
    out.on('error', (error) => {
      if (this.failure) return;
      this.failure = error;
      onError(error);
    });
    this.write(`{"log":{"version":"1.2","creator":${JSON.stringify(TOOL)},"entries":[\n`);
  }

  /**
   * Opens `file` for the log. A file that cannot be opened (no such folder, no permission) throws
   * here, before any exchange; a write that fails later calls `onError` once, and close() throws it.
   */
  static async open(file: string, onError: (error: Error) => void = () => {}): Promise<HarWriter> {
    const out = createWriteStream(file);
    await new Promise<void>((resolve, reject) => {
      out.once('open', () => resolve());
      out.once('error', reject);
    });
    return new HarWriter(out, onError);
  }

  /** Exchanges written so far. */
  get written(): number {
    return this.count;
  }

  /** Exchanges left out so far: they came while the file was too far behind. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Records an exchange without waiting: the file catches up on its own, and close() waits for it. */
  add(exchange: Exchange): void {
    if (this.failure) return;
    const entry = `${this.count === 0 ? '' : ',\n'}${JSON.stringify(harEntry(exchange))}`;
    const bytes = Buffer.byteLength(entry);
    if (this.out.writableLength + this.batchBytes + bytes > this.maxHeldBytes) {
      this.droppedCount++;
      return;
    }
    this.count++;
    this.batch += entry;
    this.batchBytes += bytes;
    if (this.batchBytes >= FLUSH_BYTES) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.draining || !this.batch || this.failure) return;
    const text = this.batch;
    this.batch = '';
    this.batchBytes = 0;
    this.write(text);
  }

  /** Hands `text` to the stream; past its high-water mark, nothing more until it drains. */
  private write(text: string): void {
    if (this.out.write(text)) return;
    this.draining = true;
    this.out.once('drain', () => {
      this.draining = false;
      this.flush();
    });
  }

  /** Writes what is gathered and the log's tail, and waits until the file has it all. */
  async close(): Promise<void> {
    clearTimeout(this.flushTimer);
    // The last of the entries waits its turn too: each 'drain' writes the batch gathered meanwhile.
    while (this.draining && !this.failure) await once(this.out, 'drain').catch(() => {});
    // A log with entries left out says so, in HAR's own comment field.
    const comment = this.droppedCount > 0 ? `,"comment":${JSON.stringify(`${this.droppedCount} exchanges not recorded: the file could not keep up`)}` : '';
    const rest = this.batch;
    this.batch = '';
    // end() calls back once the file has it all.
    if (!this.failure) await new Promise<void>((resolve) => this.out.end(`${rest}\n]${comment}}}\n`, () => resolve()));
    if (this.failure) throw this.failure;
  }
}
