// Plain http-proxy with a keep-alive agent in front of a target: what the recording proxy is
// compared with. No recording, no validation. Usage: node plain-proxy.mjs <target url> [busy µs]
// With busy µs, each answer is followed by that long a busy wait on the proxy's thread: what a
// fixed amount of work per request costs on this machine, the yardstick for the proxy's recording.
import { Agent, createServer } from 'node:http';
import httpProxy from 'http-proxy';

const target = process.argv[2];
const busyNs = BigInt(Math.round(Number(process.argv[3] ?? 0) * 1000));
const proxy = httpProxy.createProxyServer({ target, agent: new Agent({ keepAlive: true }), xfwd: false });
proxy.on('error', (_error, _req, res) => {
  if (!res.headersSent) res.writeHead(502);
  res.end();
});
const busy = () => {
  const until = process.hrtime.bigint() + busyNs;
  while (process.hrtime.bigint() < until);
};
const server = createServer((req, res) => {
  if (busyNs > 0n) res.once('finish', busy);
  proxy.web(req, res);
});
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
