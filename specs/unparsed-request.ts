// A request Node's HTTP parser refuses never reaches a handler: Node would answer with a bare
// status line. The simulator and the recording proxy answer it in the documented error shape
// instead, `{"detail": "..."}`, and close the connection.
import type { Duplex } from 'node:stream';

/** Answers a `clientError`: 431 for a head over `headerLimit` bytes (`whose` limit it is), 408 for one too slow, else 400. */
export function answerUnparsed(error: NodeJS.ErrnoException, socket: Duplex, headerLimit: number, whose: string): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['431 Request Header Fields Too Large', `Request headers exceed ${whose} limit of ${headerLimit} bytes`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['408 Request Timeout', 'The request did not arrive in time']
        : ['400 Bad Request', `Malformed HTTP request: ${error.message}`];
  const body = JSON.stringify({ detail });
  const head = `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  socket.end(head + body, () => socket.destroy());
}
