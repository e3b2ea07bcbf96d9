// The faults the admin path sets (simulator/faults.ts) as a client meets them on the wire: a status
// answered in the plane's error shape in place of the handler, latency, and a truncate that cuts a
// JSON body halfway or an event stream after its first event, over a socket or in process. A reset
// is the transport's own (server.ts destroys the socket, or fails the in-process call).
import type { ServerResponse } from 'node:http';
import type { FaultEffect } from '../faults.ts';
import { ApiError } from './errors.ts';
import { isStream, type Reply, type StreamReply } from './router.ts';
import { send, toResponse } from './send-reply.ts';

/** A status fault's refusal: answered before rate limits and routing, so the request changes nothing. */
export function faultRefusal(method: string, path: string, status: number, retryAfter: number | undefined, setBy: string): ApiError {
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
  return new ApiError(status, `Fault set by ${setBy}: ${method} ${path} answers ${status}`, undefined, headers);
}

/** Runs `then` once the fault's latency has passed: real time even on the virtual clock, for clients' timeouts. */
export function afterLatency(fault: FaultEffect, then: () => void): void {
  if (fault.latency_ms) setTimeout(then, fault.latency_ms);
  else then();
}

/** An event stream that ends after its first write: the stream a client sees when a proxy cuts it. */
function firstEventOnly(reply: StreamReply): StreamReply {
  return {
    ...reply,
    stream: (write, end, closed) =>
      reply.stream(
        (chunk) => {
          write(chunk);
          end();
        },
        end,
        closed,
      ),
  };
}

/** The first half of a JSON reply's body; undefined for a reply with no body. */
function halfBody(reply: Reply): Buffer | undefined {
  if (isStream(reply) || reply.body === undefined || reply.status === 204) return undefined;
  const bytes = Buffer.from(JSON.stringify(reply.body));
  return bytes.subarray(0, Math.floor(bytes.length / 2));
}

/** A truncate fault over a socket: a stream ends after its first event; a JSON body stops halfway and the connection is destroyed. */
export function sendTruncated(res: ServerResponse, reply: Reply, failed: (error: unknown) => void): void {
  if (isStream(reply)) {
    send(res, firstEventOnly(reply), failed);
    return;
  }
  const half = halfBody(reply);
  if (!half) {
    res.socket?.destroy();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers, 'content-length': String(Buffer.byteLength(text)) });
  res.write(half, () => res.socket?.destroy());
}

/** A truncate fault in process: the same cuts, a JSON body's stream erroring halfway as a destroyed connection does. */
export function truncatedResponse(reply: Reply): Response {
  if (isStream(reply)) return toResponse(firstEventOnly(reply));
  const half = halfBody(reply);
  if (!half) throw new TypeError('fetch failed', { cause: new Error('connection reset by a truncate fault on a reply with no body') });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(half);
      controller.error(new TypeError('terminated', { cause: new Error('connection closed halfway by a truncate fault') }));
    },
  });
  return new Response(body, { status: reply.status ?? 200, headers: { 'content-type': 'application/json', ...reply.headers } });
}
