// The fuzz's targets: an in-process simulator (rate limits off, so ten thousand requests on a
// clock that does not move reach past the limiter), optionally behind the recording proxy, and
// what a well-formed request carries on each endpoint (its key, the workspaces, known ids).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { planeOf, type Endpoint } from '../../specs/contract.ts';
import { Simulator } from '../../simulator/simulator.ts';
import { HarWriter } from '../../harness/proxy/har.ts';
import { RecordingProxy } from '../../harness/proxy/recording-proxy.ts';
import type { FuzzContext } from './requests.ts';

export const FUZZED: Endpoint[] = ['agent-server', 'control-plane', 'platform-api', 'platform-api-eu'];

export async function startFuzzTarget(seed: string): Promise<Simulator> {
  return Simulator.start({ seed, quiet: true, rateLimits: false });
}

/** The key a well-formed request sends, another that the endpoint should refuse, and the workspaces. */
export function contextFor(simulator: Simulator, endpoint: Endpoint): FuzzContext {
  const { api_keys, workspaces } = simulator.info().credentials;
  const eu = endpoint === 'platform-api-eu';
  const key = api_keys.find((k) => k.role === (eu ? 'eu-primary' : 'primary'))?.key;
  const other = api_keys.find((k) => k.role === (eu ? 'primary' : 'eu-primary'))?.key;
  const integrations = (
    parse(readFileSync(new URL('../../fixtures/platform/integrations.yaml', import.meta.url), 'utf8')) as { integrations: { id: string }[] }
  ).integrations;
  return {
    // The agent server takes no key; sending one anyway is harmless.
    apiKey: endpoint === 'agent-server' ? undefined : key,
    otherKey: other,
    tenants: workspaces.map((w) => w.id),
    ids: planeOf(endpoint) === 'control-plane' ? { integration_id: integrations.map((i) => i.id) } : {},
  };
}

/**
 * A recording proxy in front of one endpoint, streaming its HAR to a temporary file (as `proxy` does). The HAR
 * (tens of MB) is removed at close: the fuzz reads only how many exchanges were written.
 */
export async function startFuzzProxy(simulator: Simulator, endpoint: Endpoint): Promise<{ url: string; har: HarWriter; close(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'apc-fuzz-'));
  const har = await HarWriter.open(join(folder, `${endpoint}.har`));
  const proxy = new RecordingProxy({ plane: planeOf(endpoint), name: endpoint, target: simulator.urls[endpoint]!, keep: false, onExchange: (e) => har.add(e) });
  const url = await proxy.start();
  return {
    url,
    har,
    close: async () => {
      await proxy.close();
      await har.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
