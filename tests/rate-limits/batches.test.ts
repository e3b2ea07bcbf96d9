// Rate-limit fills in batches (capability bulk-requests, traffic.ts): on a target that makes them, a
// fill's thousands of requests go in a few sendRequests calls; on one that refuses every batch
// before making any (409, as with a fault in force), the fill goes request by request. The row is
// judged the same either way. A batch answered otherwise (a 500) may have been made, so
// its row is left unjudged, never sent again to be counted twice.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { stringify as toYaml } from 'yaml';
import { contract } from '../../specs/contract.ts';
import { startSimulator } from '../../simulator/start-simulator.ts';
import { conformanceRun } from '../self-test/run-cli.ts';

const BATCH_PATH = contract().adminOperation('sendRequests').path;
const ROW = '@RATE-HIGH-THROUGHPUT-BEACON-IP';

/** How a front answers batches: passes them on, or answers each with a status of its own. */
type Batches = 'made' | 409 | 500;

/** A front for one plane that counts what it forwards and answers batches as `batches` says. */
async function front(upstream: string, batches: Batches) {
  const seen = { batches: 0, refused: 0, beacons: 0 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url === BATCH_PATH) {
      seen.batches++;
      if (batches !== 'made') {
        seen.refused++;
        res.writeHead(batches, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `answered ${batches} by the front` }));
        return;
      }
    }
    if (req.url?.endsWith('/v1/beacon')) seen.beacons++;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name, value]) => typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const TITLES: Record<string, string> = {
  made: 'makes batches gets its fills in a few, and passes',
  409: 'refuses every batch (409) gets its fills request by request, and passes',
  500: 'answers a batch 500, after which it may have made it, leaves the row unjudged and sends no fill again',
};

for (const batches of ['made', 409, 500] as const) {
  test(`a rate-limit row on a target that ${TITLES[batches]}`, async () => {
    test.setTimeout(5 * 60_000);
    const sim = await startSimulator({ seed: 'batches', clock: 'virtual', logLevel: 'error' });
    const us = await front(sim.urls['platform-api'], batches);
    try {
      const dir = mkdtempSync(join(tmpdir(), 'apc-batches-'));
      const config = join(dir, 'target.yaml');
      const { capabilities } = await sim.getSimulatorInfo();
      expect(capabilities).toContain('bulk-requests');
      writeFileSync(config, toYaml({ name: 'batches', planes: { 'agent-server': sim.urls['agent-server'], 'platform-api': us.url }, capabilities }));
      const { report, stdout } = await conformanceRun(['--target', config, '--plane', 'platform-api', '--grep', ROW]);
      const rule = report.rules.find((r) => r.id === ROW.slice(1))!;
      expect(us.seen.batches).toBeGreaterThan(0);
      // The row's limit is 2000: request by request, the front forwards all of them; in batches, a handful.
      if (batches === 'made') {
        expect(rule.verdict, stdout).toBe('pass');
        expect(us.seen.refused).toBe(0);
        expect(us.seen.beacons).toBeLessThan(20);
      } else if (batches === 409) {
        expect(rule.verdict, stdout).toBe('pass');
        expect(us.seen.refused).toBe(us.seen.batches);
        expect(us.seen.beacons).toBeGreaterThan(2000);
      } else {
        expect(rule.verdict, stdout).not.toBe('pass');
        expect(rule.verdict, stdout).not.toBe('fail');
        expect(rule.tests.find((t) => t.title.startsWith('US'))?.error, stdout).toMatch(/may have counted/);
        expect(us.seen.beacons).toBeLessThan(20);
      }
    } finally {
      await us.close();
      await sim.close();
    }
  });
}
