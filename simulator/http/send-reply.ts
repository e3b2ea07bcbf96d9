// A reply as it leaves a plane: written to a socket's response (send), or made a fetch Response for
// a request answered in process (toResponse), with the same status, headers and body either way.
import type { ServerResponse } from 'node:http';
import { isStream, type Reply } from './router.ts';

/** Writes a reply to a socket's response; a stream's handler writes until it ends, `failed` told if it throws. */
export function send(res: ServerResponse, reply: Reply, failed: (error: unknown) => void): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (isStream(reply)) {
    res.writeHead(reply.status ?? 200, reply.headers);
    res.flushHeaders();
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    const write = (chunk: string) => {
      if (!res.writableEnded) res.write(chunk);
    };
    const end = () => {
      if (!res.writableEnded) res.end();
    };
    Promise.resolve(reply.stream(write, end, closed)).catch((error: unknown) => {
      failed(error);
      end();
    });
    return;
  }
  const status = reply.status ?? 200;
  if (reply.body === undefined || status === 204) {
    res.writeHead(status, reply.headers);
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  const length = String(Buffer.byteLength(text));
  // Most replies set no header of their own: theirs are copied only when they do.
  if (reply.headers === undefined) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': length });
  } else {
    const headers: Record<string, string> = { ...reply.headers };
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = length;
    res.writeHead(status, headers);
  }
  res.end(text);
}

/** A reply as a fetch Response; a stream reply becomes a body that the handler writes into until it ends or the reader cancels. */
export function toResponse(reply: Reply): Response {
  if (isStream(reply)) {
    let cancelled!: () => void;
    const closed = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true;
        const end = () => {
          if (open) controller.close();
          open = false;
          cancelled();
        };
        const write = (chunk: string) => {
          if (open) controller.enqueue(new TextEncoder().encode(chunk));
        };
        Promise.resolve(reply.stream(write, end, closed)).catch(end);
      },
      cancel() {
        cancelled();
      },
    });
    return new Response(body, { status: reply.status ?? 200, headers: reply.headers });
  }
  const status = reply.status ?? 200;
  const headers = new Headers(reply.headers ?? {});
  if (reply.body === undefined || status === 204) return new Response(null, { status, headers });
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(reply.body), { status, headers });
}
