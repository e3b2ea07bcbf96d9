// §8 "not shown": what a target does when a limit is exceeded, which limits its thread, run,
// assistant and deployment endpoints have beyond the default rows, and its size limits. Each
// is recorded for the report, never failed.
import { skipDeclared } from '../../harness/checks/attribution.ts';
import { targetApiKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import { caller, Traffic, type Sample } from '../rate-limits/traffic.ts';
import { requireRateLimitTraffic } from '../rate-limits/window.ts';
import { baseTime, isoWith } from './traces-steps.ts';

const headerNames = (headers: Record<string, string>) => Object.keys(headers).filter((h) => /^(retry-after|x-ratelimit|ratelimit)/i.test(h));

test(
  'what a refusal carries when a limit is exceeded: status, headers, body',
  { tag: '@RATE-EXCEEDED-BEHAVIOUR' },
  async ({ conformanceRun, testKey, observe, time, targetCredentials }, testInfo) => {
    requireRateLimitTraffic(conformanceRun);
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (_, testKey) => {
      const who = caller('api-key', 0, { testKey });
      const stats: Sample = { method: 'POST', path: '/runs/stats' };
      const admitted = await traffic.fill('platform-api', stats, who, 1);
      const res = await traffic.send('platform-api', stats, who);
      // Observed once refused: an answer a made-up key met is no refusal by a limit.
      traffic.refusal().expect(res, admitted, 'the 2nd POST /runs/stats of a window');
      const shown = headerNames(res.headers).map((h) => `${h}: ${res.headers[h]}`);
      observe(
        'RATE-EXCEEDED-BEHAVIOUR',
        `the 2nd POST /runs/stats of a window answered ${res.status} (${res.headers['content-type'] ?? 'no content-type'}) with ${shown.length ? shown.join(', ') : 'no rate-limit headers'}; body ${res.text.slice(0, 300)}`,
      );
    });
  },
);

test(
  'limits on thread and deployment endpoints for a caller with x-api-key, beyond the default row',
  { tag: '@RATE-OTHER-ENDPOINT-LIMITS' },
  async ({ conformanceRun, testKey, observe, targetCredentials }, testInfo) => {
    requireRateLimitTraffic(conformanceRun);
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    const probes: { endpoint: 'agent-server' | 'control-plane'; sample: Sample }[] = [
      { endpoint: 'agent-server', sample: { method: 'GET', path: '/threads/0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01' } },
      { endpoint: 'control-plane', sample: { method: 'GET', path: '/v2/deployments/0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01' } },
    ];
    for (const [i, { endpoint, sample }] of probes.entries()) {
      if (!conformanceRun.proxies[endpoint]) continue;
      const who = caller('api-key', i, { testKey });
      const answers = await traffic.sendMany(endpoint, [sample], who, 1000);
      const refusedAt = answers.findIndex((a) => a.status === 429);
      const next = await traffic.send(endpoint, sample, who);
      observe(
        'RATE-OTHER-ENDPOINT-LIMITS',
        `${endpoint} ${sample.method} ${sample.path.replace(/[0-9a-f-]{36}/, '{id}')} with one x-api-key at one instant: ` +
          `${refusedAt < 0 ? 'the first 1000 were admitted' : `refused from request ${refusedAt + 1}`}; request 1001 answered ${next.status}` +
          `${next.headers['retry-after'] ? ` with Retry-After ${next.headers['retry-after']}` : ''}`,
      );
    }
  },
);

test('maximum request and batch sizes: what the target answers just past the sizes /info gives', { tag: '@RATE-MAX-SIZES' }, async ({
  traceRunIds: ids,
  platform,
  conformanceRun,
  observe,
  targetCredentials,
}) => {
  skipDeclared(!targetApiKey(conformanceRun, targetCredentials), `target '${conformanceRun.target.name}' names no API key, which run ingestion needs`);
  const info = await platform.get<{ batch_ingest_config?: { size_limit?: number; size_limit_bytes?: number } }>('/info');
  const config = info.json?.batch_ingest_config ?? {};
  const sizeLimit = config.size_limit ?? 100;
  const sizeLimitBytes = config.size_limit_bytes ?? 20_971_520;
  observe(
    'RATE-MAX-SIZES',
    `/info batch_ingest_config: size_limit ${config.size_limit ?? '(absent)'}, size_limit_bytes ${config.size_limit_bytes ?? '(absent)'}`,
  );
  const start = baseTime(conformanceRun);
  const traceRun = (i: number) => {
    const id = ids.v7(start + i);
    const stamp = isoWith(start + i);
    return { id, trace_id: id, dotted_order: `${stamp.replace(/[-:.]/g, '')}${id}`, name: `size-${i}`, run_type: 'chain', start_time: stamp };
  };
  const runs = Array.from({ length: sizeLimit + 1 }, (_, i) => traceRun(i));
  const batch = await platform.post('/runs/batch', { post: runs });
  observe('RATE-MAX-SIZES', `POST /runs/batch with ${runs.length} runs (size_limit + 1) answered ${batch.status} ${batch.text.slice(0, 200)}`);
  const padding = 'x'.repeat(sizeLimitBytes + 1);
  const big = await platform.post('/runs/batch', { post: [{ ...traceRun(sizeLimit + 1), inputs: { padding } }] });
  observe(
    'RATE-MAX-SIZES',
    `POST /runs/batch with a body of ${sizeLimitBytes + 1}+ bytes (size_limit_bytes + 1) answered ${big.status} ${big.text.slice(0, 200)}`,
  );
  expect(big.status, big.describe('no server error on an oversized body')).toBeLessThan(500);
});
