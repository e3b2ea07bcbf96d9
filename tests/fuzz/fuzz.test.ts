// CI's slice of the fuzz (the nightly script, nightly.ts, sends ten thousand per endpoint):
// malformed requests to every operation of every plane get no 5xx and drop no connection, and
// a refused one leaves the simulator's state as it was; the same requests through the proxy too.
import { expect, test } from '@playwright/test';
import { describeTally, fuzz } from './fuzz.ts';
import { contextFor, FUZZED, startFuzzProxy, startFuzzTarget } from './setup.ts';
import { stateDigest } from './state-digest.ts';

const RUNS = Number(process.env.APC_FUZZ_RUNS ?? 400);
const SEED = Number(process.env.APC_FUZZ_SEED ?? 20261123);

for (const endpoint of FUZZED) {
  test(`fuzz ${endpoint}: no 5xx, no dropped connection, refusals change nothing; directly and through the proxy`, async () => {
    test.setTimeout(240_000);
    const simulator = await startFuzzTarget('fuzz');
    const proxy = await startFuzzProxy(simulator, endpoint);
    try {
      const direct = await fuzz({ endpoint, url: simulator.urls[endpoint]!, context: contextFor(simulator, endpoint), runs: RUNS, seed: SEED, simulator });
      const proxied = await fuzz({ endpoint, url: proxy.url, context: contextFor(simulator, endpoint), runs: RUNS, seed: SEED + 1, simulator });
      console.log(`${describeTally(direct, 'direct')}\n${describeTally(proxied, 'proxy')}`);
      // The fuzz reaches past validation: some requests are accepted, most are refused.
      expect(direct.byClass['2xx'] ?? 0, 'requests the simulator accepted').toBeGreaterThan(0);
      expect(direct.byClass['4xx'] ?? 0, 'requests the simulator refused').toBeGreaterThan(0);
      expect(proxy.har.written, 'exchanges the proxy recorded').toBe(proxied.sent);
    } finally {
      await proxy.close();
      await simulator.close();
    }
  });
}

test('the state digest sees what a request changes, and nothing else', async () => {
  const simulator = await startFuzzTarget('fuzz');
  try {
    const before = stateDigest(simulator);
    expect(stateDigest(simulator), 'the same state, the same digest').toBe(before);
    expect((await simulator.request('agent-server', '/threads/not-a-uuid')).status).toBe(422);
    expect(stateDigest(simulator), 'after a refusal').toBe(before);
    expect((await simulator.request('agent-server', '/threads', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(
      200,
    );
    expect(stateDigest(simulator), 'after a thread was created').not.toBe(before);
  } finally {
    await simulator.close();
  }
});
