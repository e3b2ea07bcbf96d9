// Bare node:http, the bench's ceiling: one fixed JSON body, no routing, no state. Plain
// JavaScript, so it starts and runs with no transform. Prints its URL on stdout.
import { createServer } from 'node:http';

const body = JSON.stringify({ thread_id: '00000000-0000-4000-8000-000000000000', status: 'idle', metadata: {}, values: {} });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
