// Bytes no HTTP client would send (over-long heads, unknown methods, cut bodies) go out on a
// socket of their own; tests of the simulator's and the proxy's limits read the answer as text.
import { connect } from 'node:net';

/** Sends raw bytes on a connection of its own and answers everything that comes back until it closes. */
export function rawExchange(url: string, bytes: string | Buffer, options: { thenClose?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(bytes);
      if (options.thenClose) socket.destroy();
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
  });
}
