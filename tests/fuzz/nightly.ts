// npm run fuzz [-- --runs N] [-- --seed S]: the nightly fuzz, ten thousand malformed requests per
// endpoint by default, directly and through the proxy; prints the counts and exits 1 on a 5xx,
// a dropped connection or a refusal that changed the state (with seed and counterexample).
import { parseArgs } from 'node:util';
import { describeTally, fuzz } from './fuzz.ts';
import { contextFor, FUZZED, startFuzzProxy, startFuzzTarget } from './setup.ts';

const { values } = parseArgs({ options: { runs: { type: 'string' }, seed: { type: 'string' } } });
const runs = Number(values.runs ?? 10_000);
const seed = Number(values.seed ?? Date.now() % 2 ** 31);
console.log(`fuzz: ${runs} requests per endpoint and way, seed ${seed}`);
let failed = false;
for (const endpoint of FUZZED) {
  const simulator = await startFuzzTarget('fuzz');
  const proxy = await startFuzzProxy(simulator, endpoint);
  try {
    const context = contextFor(simulator, endpoint);
    console.log(describeTally(await fuzz({ endpoint, url: simulator.urls[endpoint]!, context, runs, seed, simulator }), 'direct'));
    console.log(describeTally(await fuzz({ endpoint, url: proxy.url, context, runs, seed: seed + 1, simulator }), 'proxy'));
  } catch (error) {
    failed = true;
    console.error(`${endpoint}: ${(error as Error).message}`);
  } finally {
    await proxy.close();
    await simulator.close();
  }
}
process.exitCode = failed ? 1 : 0;
