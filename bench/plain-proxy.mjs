// Plain http-proxy with a keep-alive agent in front of a target: what the recording proxy is
// compared with. No recording, no validation. Usage: node plain-proxy.mjs <target url>
import { Agent, createServer } from 'node:http';
import httpProxy from 'http-proxy';

const target = process.argv[2];
const proxy = httpProxy.createProxyServer({ target, agent: new Agent({ keepAlive: true }), xfwd: false });
proxy.on('error', (_error, _req, res) => {
  if (!res.headersSent) res.writeHead(502);
  res.end();
});
const server = createServer((req, res) => proxy.web(req, res));
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
