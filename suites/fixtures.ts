// Playwright fixtures: the target (through the recording proxy), a client per plane,
// the simulator's powers where the target has them, and the evidence of each test.
import { test as base, expect } from '@playwright/test';
import type { Endpoint } from '../specs/contract.ts';
import type { CredentialRole, SimulatorCredentials } from '../simulator/auth/workspaces.ts';
import type { Capability } from '../simulator/simulator.ts';
import type { DeploymentConfigFile } from '../simulator/deployment-config.ts';
import { WebhookReceiver, type Failure, type ReceivedRequest } from '../fixtures/webhook-receiver.ts';
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

/**
 * Lets time pass for a test on any target: the virtual clock is advanced where the target
 * has one, real time passes elsewhere. Runs asked to wait (`delay_ms`) finish after it.
 */
export interface Time {
  pass(ms: number): Promise<void>;
  virtual: boolean;
}

/**
 * One test's part of the webhook receiver: URLs under a path of its own, so deliveries that
 * arrive late for another test never count here. `name` picks a sub-path.
 */
export class WebhookChannel {
  constructor(
    private readonly receiver: WebhookReceiver,
    /** Base URL the target reaches the receiver at. */
    private readonly publicUrl: string,
    private readonly prefix: string,
    /** On a virtual clock deliveries come at once; a real target may take seconds. */
    private readonly virtualTime: boolean,
  ) {}

  url(name = ''): string {
    return `${this.publicUrl}${this.path(name)}`;
  }

  received(name = ''): ReceivedRequest[] {
    return this.receiver.received(this.path(name));
  }

  /**
   * Waits until `count` requests arrived (or a timeout passed) and answers what arrived. A real
   * target gets long enough for the reference's retries (3 attempts within a few seconds).
   */
  waitFor(count: number, name = '', timeoutMs = this.virtualTime ? 2_000 : 10_000): Promise<ReceivedRequest[]> {
    return this.receiver.waitFor(count, { path: this.path(name), timeoutMs });
  }

  failNext(count: number, failure: Failure, name = ''): void {
    this.receiver.failNext(count, failure, this.path(name));
  }

  /** Waits long enough that a delivery still on its way would have arrived. */
  async settle(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.virtualTime ? 300 : 2_000));
  }

  private path(name: string): string {
    return name ? `${this.prefix}/${name}` : this.prefix;
  }
}

interface TestFixtures {
  agent: ApiClient;
  /** The control plane, with the target's API key. */
  controlPlane: ApiClient;
  /** The platform API of the US region, with the target's API key. */
  platform: ApiClient;
  /** The platform API of the EU region, with the target's API key. */
  platformEu: ApiClient;
  /** Keys of several workspaces and a bearer token; skips on a target that publishes none. */
  credentials: Credentials;
  clock: SimulatorAdmin;
  time: Time;
  /** Records what a target did for an `unspecified` rule; the report shows it, never fails it. */
  observe: (ruleId: string, observation: string) => void;
  /** A value unique to this test, to keep its data apart from other tests' on a shared target. */
  scope: string;
  /** The webhook receiver, reachable from the target; skips the test when it is not. */
  webhookReceiver: WebhookChannel;
  /** The target's deployment configuration file as written (§6); skips the test when it is unknown. */
  deploymentConfig: DeploymentConfigFile;
  /**
   * Whether the opt-in real-time rate-limit probes may run (`run --rate-limit-probes`): they
   * spend the target's real quota.
   */
  rateLimitProbes: boolean;
  /** Empties the target's rate-limit counters before each test, where it can (rate-limit-reset). */
  rateLimitReset: void;
  evidence: void;
}

interface WorkerFixtures {
  run: RunContext;
  /** The local receiver; APC_WEBHOOK_RECEIVER_PORT fixes its port (for a tunnel to it). */
  webhookServer: WebhookReceiver;
  /** The simulator's published credentials (/__sim/info), when the target is a simulator. */
  simulatorCredentials: SimulatorCredentials | undefined;
}

/**
 * The credentials of several workspaces that the simulator publishes (spec §5), for tests
 * of workspace selection and isolation, which need more than the target's one API key.
 */
export class Credentials {
  constructor(
    readonly published: SimulatorCredentials,
    private readonly run: RunContext,
    private readonly testId: string,
  ) {}

  apiKey(role: CredentialRole): string {
    const found = this.published.api_keys.find((k) => k.role === role);
    if (!found) throw new Error(`the simulator publishes no API key with role ${role}`);
    return found.key;
  }

  /** The workspaces a key of this role is linked to, its default first when it has one. */
  workspaces(role: CredentialRole): string[] {
    const found = this.published.api_keys.find((k) => k.role === role)!;
    return [...new Set([...(found.default_workspace ? [found.default_workspace] : []), ...found.workspaces])];
  }

  get bearerToken(): { token: string; workspaces: string[]; default_workspace: string | null } {
    return this.published.bearer_tokens[0];
  }

  /** A client of `endpoint` (through the proxy) sending this API key, or none. */
  client(endpoint: Endpoint, apiKey?: string): ApiClient {
    return clientWithKey(this.run, endpoint, this.testId, apiKey)!;
  }
}

export function client(run: RunContext, endpoint: Endpoint, testId: string): ApiClient | undefined {
  const apiKey = run.target.apiKeyEnv ? process.env[run.target.apiKeyEnv] : undefined;
  return clientWithKey(run, endpoint, testId, apiKey);
}

/** A client of `endpoint` through the recording proxy that sends `apiKey` as X-Api-Key (none when undefined). */
export function clientWithKey(run: RunContext, endpoint: Endpoint, testId: string, apiKey: string | undefined): ApiClient | undefined {
  const url = run.proxies[endpoint];
  return url ? new ApiClient(url, { testId, apiKey }) : undefined;
}

/** The target's API key: from its config's api_key_env, or the simulator's primary key. */
export function targetApiKey(run: RunContext, credentials: SimulatorCredentials | undefined): string | undefined {
  if (run.target.apiKeyEnv) return process.env[run.target.apiKeyEnv];
  return credentials?.api_keys.find((k) => k.role === 'primary')?.key;
}

function planeClient(run: RunContext, credentials: SimulatorCredentials | undefined, endpoint: Endpoint, testId: string): ApiClient {
  const api = clientWithKey(run, endpoint, testId, targetApiKey(run, credentials));
  test.skip(!api, `target '${run.target.name}' names no ${endpoint} URL`);
  return api!;
}

export function requireCapability(run: RunContext, capability: Capability): void {
  test.skip(
    !run.target.capabilities.includes(capability),
    `needs the '${capability}' capability, which target '${run.target.name}' does not have`,
  );
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  run: [async ({}, use) => use(runContext()), { scope: 'worker' }],

  simulatorCredentials: [
    async ({ run }, use) => {
      if (!run.target.capabilities.includes('workspace-credentials') || !run.target.adminUrl) return use(undefined);
      const response = await fetch(`${run.target.adminUrl}/__sim/info`);
      await use(response.ok ? ((await response.json()) as { credentials?: SimulatorCredentials }).credentials : undefined);
    },
    { scope: 'worker' },
  ],

  controlPlane: async ({ run, simulatorCredentials }, use, testInfo) => {
    await use(planeClient(run, simulatorCredentials, 'control-plane', testInfo.testId));
  },

  platform: async ({ run, simulatorCredentials }, use, testInfo) => {
    await use(planeClient(run, simulatorCredentials, 'platform-api', testInfo.testId));
  },

  platformEu: async ({ run, simulatorCredentials }, use, testInfo) => {
    await use(planeClient(run, simulatorCredentials, 'platform-api-eu', testInfo.testId));
  },

  credentials: async ({ run, simulatorCredentials }, use, testInfo) => {
    requireCapability(run, 'workspace-credentials');
    test.skip(!simulatorCredentials, `target '${run.target.name}' publishes no credentials at /__sim/info`);
    await use(new Credentials(simulatorCredentials!, run, testInfo.testId));
  },

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

  time: async ({ run }, use, testInfo) => {
    const virtual = run.target.capabilities.includes('virtual-clock');
    const admin = virtual ? new SimulatorAdmin(new ApiClient(run.target.adminUrl!, { testId: testInfo.testId })) : undefined;
    await use({
      virtual,
      pass: async (ms) => {
        if (admin) await admin.advance(ms);
        else await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
  },

  webhookServer: [
    async ({}, use) => {
      const receiver = await WebhookReceiver.start({ port: Number(process.env.APC_WEBHOOK_RECEIVER_PORT ?? 0) });
      await use(receiver);
      await receiver.close();
    },
    { scope: 'worker' },
  ],

  webhookReceiver: async ({ run, webhookServer }, use, testInfo) => {
    const agentUrl = run.target.planes['agent-server'];
    test.skip(
      !run.target.webhookReceiverUrl && agentUrl !== undefined && !/^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/i.test(agentUrl),
      `target '${run.target.name}' cannot reach a receiver on 127.0.0.1: set webhook_receiver_url in the target config to a public URL forwarded to the local receiver (port APC_WEBHOOK_RECEIVER_PORT)`,
    );
    const publicUrl = (run.target.webhookReceiverUrl ?? webhookServer.url).replace(/\/+$/, '');
    await use(new WebhookChannel(webhookServer, publicUrl, `/apc-hooks/${testInfo.testId}`, run.target.capabilities.includes('virtual-clock')));
  },

  deploymentConfig: async ({ run }, use) => {
    // Only a simulator publishes the configuration it runs with (/__sim/info).
    const response = run.target.adminUrl ? await fetch(`${run.target.adminUrl}/__sim/info`) : undefined;
    const config = response?.ok ? ((await response.json()) as { deployment_config?: DeploymentConfigFile }).deployment_config : undefined;
    test.skip(!config, `the deployment configuration of target '${run.target.name}' is unknown`);
    await use(config!);
  },

  rateLimitProbes: async ({}, use) => {
    await use(process.env.APC_RATE_LIMIT_PROBES === '1');
  },

  // A conformance run sends thousands of requests in one frozen virtual instant: without this,
  // the §8 limits would refuse later tests for what earlier ones sent.
  rateLimitReset: [
    async ({ run }, use) => {
      if (run.target.capabilities.includes('rate-limit-reset') && run.target.adminUrl) {
        const response = await fetch(`${run.target.adminUrl}/__sim/rate-limits/reset`, { method: 'POST' });
        if (!response.ok) throw new Error(`resetting the rate-limit counters failed: ${response.status} ${await response.text()}`);
      }
      await use();
    },
    { auto: true },
  ],

  observe: async ({}, use, testInfo) => {
    await use((ruleId, observation) => {
      testInfo.annotations.push({ type: 'observed', description: `${ruleId}: ${observation}` });
    });
  },

  scope: async ({ run }, use, testInfo) => {
    await use(`${testInfo.testId}-${run.runTag}`);
  },

  evidence: [
    async ({ run }, use, testInfo) => {
      await use();
      // The proxies share one store: any of them answers for all.
      const exchanges: Exchange[] = [];
      const [url] = Object.values(run.proxies);
      if (url) {
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
