// Playwright fixtures: the target (through the recording proxy), a client per plane,
// the simulator's powers where the target has them, and the evidence of each test.
import { test as base, expect } from '@playwright/test';
import type { Endpoint } from '../specs/contract.ts';
import type { Capability } from '../simulator/simulator.ts';
import { ApiClient } from './client.ts';
import type { Exchange } from './proxy/recording-proxy.ts';
import { runContext, type RunContext } from './run-context.ts';

export { expect };

/** The simulator's admin path (/__sim): virtual clock and reset. */
export class SimulatorAdmin {
  constructor(private readonly client: ApiClient) {}

  async advance(ms: number): Promise<void> {
    const res = await this.client.post('/__sim/clock/advance', { ms });
    if (res.status !== 200) throw new Error(res.describe('advancing the virtual clock failed'));
  }
}

interface TestFixtures {
  agent: ApiClient;
  clock: SimulatorAdmin;
  /** Records what a target did for an `unspecified` rule; the report shows it, never fails it. */
  observe: (ruleId: string, observation: string) => void;
  /** A value unique to this test, to keep its data apart from other tests' on a shared target. */
  scope: string;
  evidence: void;
}

interface WorkerFixtures {
  run: RunContext;
}

export function client(run: RunContext, endpoint: Endpoint, testId: string): ApiClient | undefined {
  const url = run.proxies[endpoint];
  if (!url) return undefined;
  const apiKey = run.target.apiKeyEnv ? process.env[run.target.apiKeyEnv] : undefined;
  return new ApiClient(url, { testId, apiKey });
}

function requireCapability(run: RunContext, capability: Capability): void {
  test.skip(
    !run.target.capabilities.includes(capability),
    `needs the '${capability}' capability, which target '${run.target.name}' does not have`,
  );
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  run: [async ({}, use) => use(runContext()), { scope: 'worker' }],

  agent: async ({ run }, use, testInfo) => {
    const api = client(run, 'agent-server', testInfo.testId);
    test.skip(!api, `target '${run.target.name}' names no agent-server URL`);
    await use(api!);
  },

  clock: async ({ run }, use, testInfo) => {
    requireCapability(run, 'virtual-clock');
    const url = run.target.adminUrl!;
    await use(new SimulatorAdmin(new ApiClient(url, { testId: testInfo.testId })));
  },

  observe: async ({}, use, testInfo) => {
    await use((ruleId, observation) => {
      testInfo.annotations.push({ type: 'observed', description: `${ruleId}: ${observation}` });
    });
  },

  scope: async ({ run }, use, testInfo) => {
    await use(`${testInfo.testId}-${run.seed}`);
  },

  evidence: [
    async ({ run }, use, testInfo) => {
      await use();
      const exchanges: Exchange[] = [];
      for (const url of Object.values(run.proxies)) {
        const response = await fetch(`${url}/__apc/exchanges?test=${encodeURIComponent(testInfo.testId)}`);
        if (response.ok) exchanges.push(...((await response.json()) as Exchange[]));
      }
      if (exchanges.length > 0) {
        await testInfo.attach('apc-exchanges', { body: JSON.stringify(exchanges), contentType: 'application/json' });
      }
    },
    { auto: true },
  ],
});
