// Starts (or finds) the target and puts a recording proxy in front of each of its planes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { planeOf, type Endpoint } from '../specs/contract.ts';
import { RecordingProxy, toHar, type Exchange } from './proxy/recording-proxy.ts';
import { RUN_ENV, type RunContext } from './run-context.ts';
import { resolveTarget } from './target.ts';
import { DEFAULT_SEED } from '../simulator/simulator.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const seed = process.env.APC_SEED ?? DEFAULT_SEED;
  const outDir = resolve(process.env.APC_OUT ?? 'conformance-report');
  mkdirSync(outDir, { recursive: true });
  const { target, simulator } = await resolveTarget(process.env.APC_TARGET || undefined, seed);

  // A simulator started elsewhere is reset to the run's seed: same seed, same ids, same report.
  if (!simulator && target.capabilities.includes('reset') && target.adminUrl) {
    const reset = await fetch(`${target.adminUrl}/__sim/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seed }) });
    if (!reset.ok) throw new Error(`resetting the simulator at ${target.adminUrl} failed: ${reset.status} ${await reset.text()}`);
  }
  const exchanges: Exchange[] = [];
  const proxies: Partial<Record<Endpoint, string>> = {};
  const running: RecordingProxy[] = [];
  for (const [endpoint, url] of Object.entries(target.planes) as [Endpoint, string][]) {
    const proxy = new RecordingProxy({ plane: planeOf(endpoint), name: endpoint, target: url, store: exchanges });
    proxies[endpoint] = await proxy.start();
    running.push(proxy);
  }
  const runTag = target.capabilities.includes('seeded-ids') ? seed : `${seed}-${Date.now().toString(36)}`;
  const context: RunContext = { target, proxies, seed, runTag, outDir };
  process.env[RUN_ENV] = JSON.stringify(context);

  return async () => {
    await Promise.all(running.map((p) => p.close()));
    await simulator?.close();
    writeFileSync(join(outDir, 'exchanges.har'), JSON.stringify(toHar(exchanges), null, 2));
  };
}
