// Playwright fixtures: the target (through the recording proxy), a client per plane,
// the simulator's capabilities where the target has them, and the evidence of each test.
// Playwright's root test, without the browser fixtures of its default one: a conformance test opens no page,
// and those thirty-odd fixtures would each be set up, torn down and given a captured stack in every test.
import { _baseTest as base, expect, type TestInfo } from '@playwright/test';
import { extname } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { contract, planeOf, type Endpoint, type Operation } from '../specs/contract.ts';
import type { Capability, CredentialRole, Credentials as PublishedCredentials, DeploymentConfigFile } from '../specs/types/simulator-admin.ts';
import { AdminClient, answered } from './admin-client.ts';
import type { Failure, ReceivedRequest } from './webhook-receiver.ts';
import { ReceiverClient } from './receiver-client.ts';
import { hooksPath } from './webhook-evidence.ts';
import { ApiClient, type ApiResponse } from './client.ts';
import { exchangeDescribedIn } from './described-exchanges.ts';
import { EVIDENCE_ATTACHMENT, evidenceOf, inRunningTest, redactWords } from './test-evidence.ts';
import { readConformanceRun, receiverUrl, conformanceMarkOf, type ConformanceRun } from './conformance-run.ts';
import { planOf } from './conformance-options.ts';
import { secret } from './environment.ts';
import { serves, type ConfiguredCredential } from './target.ts';
import { sleep, Time } from './time.ts';
import { endRuleChecks, skipDeclared, startRuleChecks } from './checks/attribution.ts';
import { markTestStart } from './property.ts';
import { allows, profileFor, type Effect } from './profile.ts';
import { partitionOf, type Attribution } from './partition.ts';
import { type Exchange, redactUrl, testExchangesUrl, unreachableExchange } from '../specs/evidence-protocol.ts';

export { expect, receiverUrl, Time };

/** The virtual clock of the simulator's admin protocol (advanceClock). */
class SimulatorAdmin {
  constructor(private readonly admin: AdminClient) {}

  async advance(ms: number): Promise<void> {
    answered(await this.admin.advanceClock({ ms }), 'advancing the virtual clock');
  }
}

/**
 * One test's part of the webhook receiver: URLs under a path of its own, so deliveries that
 * arrive late for another test never count here. `name` picks a sub-path.
 */
export class WebhookChannel {
  constructor(
    private readonly receiver: ReceiverClient,
    /** Base URL the target reaches the receiver at. */
    private readonly publicUrl: string,
    private readonly prefix: string,
    private readonly time: Time,
    /** How many deliveries the target has under way, where it can tell (capability webhook-activity). */
    private readonly underWay?: () => Promise<number>,
  ) {}

  url(name = ''): string {
    return `${this.publicUrl}${this.path(name)}`;
  }

  received(name = ''): Promise<ReceivedRequest[]> {
    return this.receiver.received(this.path(name));
  }

  /**
   * The wall ms a delivery has to arrive within once its run has ended: the target's webhook
   * timeout; on a virtual clock, where deliveries leave at once, 2 s.
   */
  get deadline(): number {
    return this.time.virtual ? 2_000 : this.time.wall(this.time.timeouts.webhook, 2_000);
  }

  /** Waits until `count` requests arrived (or `timeoutMs`, the delivery deadline by default, passed) and answers what arrived. */
  waitFor(count: number, name = '', timeoutMs = this.deadline): Promise<ReceivedRequest[]> {
    this.time.allowWall(timeoutMs);
    const what = `${count} webhook deliver${count === 1 ? 'y' : 'ies'} at ${this.path(name)}`;
    return this.time.waiting(what, timeoutMs, () => this.receiver.waitFor(count, this.path(name), timeoutMs));
  }

  failNext(count: number, failure: Failure, name = ''): Promise<void> {
    return this.receiver.failNext(count, failure, this.path(name));
  }

  /**
   * Waits out the delivery deadline, so that a delivery that has not arrived by then counts as
   * never sent: the wait an absence (no delivery, no second one) is judged over. Called once a
   * test has made every request whose deliveries it counts: one wait serves them all. A target
   * that says what it has under way (webhook-activity) is waited for only until nothing is.
   */
  async settle(): Promise<void> {
    this.time.allowWall(this.deadline);
    if (!this.underWay) return this.time.waiting('webhook deliveries that should not come', this.deadline, () => sleep(this.deadline));
    // A target that tells what it has under way has nothing more to send once that is none.
    const until = Date.now() + this.deadline;
    while ((await this.underWay()) > 0 && Date.now() < until) await sleep(25);
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
  /** A value unique to this test (its id and the run key), to keep its data apart from other tests' on a shared target. */
  testKey: string;
  /** The webhook receiver, reachable from the target; skips the test when it is not. */
  webhookReceiver: WebhookChannel;
  /** The target's deployment configuration file as written (§6); skips the test when it is unknown. */
  deploymentConfig: DeploymentConfigFile;
  /** Notes when the test started, so that a property stops shrinking before the test times out. */
  // biome-ignore lint/suspicious/noConfusingVoidType: an auto fixture gives nothing, so its use() takes no value.
  testStart: void;
  /** Empties the target's rate-limit counters before each test, where it can (rate-limit-reset). */
  // biome-ignore lint/suspicious/noConfusingVoidType: an auto fixture gives nothing, so its use() takes no value.
  rateLimitReset: void;
  // biome-ignore lint/suspicious/noConfusingVoidType: an auto fixture gives nothing, so its use() takes no value.
  evidence: void;
  // biome-ignore lint/suspicious/noConfusingVoidType: an auto fixture gives nothing, so its use() takes no value.
  keepWorkers: void;
  /** Throws the test's failed forRule checks once its body has ended (each rule judged apart). */
  // biome-ignore lint/suspicious/noConfusingVoidType: an auto fixture gives nothing, so its use() takes no value.
  ruleChecks: void;
}

interface WorkerFixtures {
  /** The conformance run: its plan and options, the target, the proxies, the webhook receiver, its profile and tag. */
  conformanceRun: ConformanceRun;
  // biome-ignore lint/suspicious/noConfusingVoidType: an auto fixture gives nothing, so its use() takes no value.
  leanStacks: void;
  /**
   * The target's credentials beyond its API key: those a simulator publishes (getSimulatorInfo), or
   * those the target config names (their secrets read from the environment).
   */
  targetCredentials: PublishedCredentials | undefined;
}

/**
 * The credentials of several workspaces (spec §5), as a simulator publishes them or a target
 * config names them, for tests of workspace selection and isolation, which need more than the
 * target's one API key.
 */
class Credentials {
  constructor(
    readonly published: PublishedCredentials,
    private readonly conformanceRun: ConformanceRun,
    private readonly by: Attribution,
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
    return clientWithKey(this.conformanceRun, endpoint, this.by, apiKey)!;
  }
}

function client(conformanceRun: ConformanceRun, endpoint: Endpoint, by: Attribution): ApiClient | undefined {
  const apiKey = conformanceRun.target.apiKeyEnv ? secret(conformanceRun.target.apiKeyEnv) : undefined;
  return clientWithKey(conformanceRun, endpoint, by, apiKey);
}

/**
 * A client of `endpoint` through the recording proxy that sends `apiKey` as X-Api-Key (none
 * when undefined), its requests filed under `by`'s test and sent to its file's partition. It makes no request that would create what the run's profile forbids: the
 * test is skipped instead, naming the profile that would run it.
 */
export function clientWithKey(
  conformanceRun: ConformanceRun,
  endpoint: Endpoint,
  by: Attribution,
  apiKey: string | undefined,
  { rateLimited = 'wait' }: { rateLimited?: 'wait' | 'answer' } = {},
): ApiClient | undefined {
  const url = conformanceRun.proxies[endpoint];
  const plane = planeOf(endpoint);
  const guard = (method: string, path: string) => {
    const operation = contract().findOperation(plane, method, path)?.operation;
    const effect = operation?.document['x-creates'];
    if (effect) requireEffect(conformanceRun, effect, `${method} ${path.split('?')[0]}`);
    if (operation) requireServed(conformanceRun, operation);
  };
  const retryAfter = rateLimited === 'wait' && !conformanceRun.target.capabilities.includes('virtual-clock') ? waitOutRateLimit(conformanceRun) : undefined;
  const served = (operationId: string) => serves(conformanceRun.target, contract().operation(plane, operationId));
  const options = { plane, testId: by.testId, partition: partitionOf(conformanceRun, by), apiKey, guard, retryAfter, onRetry: giveTestTime, served };
  return url ? new ApiClient(url, { ...options, conformanceMark: conformanceMarkOf(conformanceRun) }) : undefined;
}

/**
 * On a target whose limits run in real time, a request refused by a rate limit is sent again
 * once its Retry-After (in the target's seconds; 1 s without one) has passed, up to 5 times, as
 * a user's client does: the run's own traffic must not turn into failures of other rules. The
 * test gets the time it waits.
 */
function waitOutRateLimit(conformanceRun: ConformanceRun): (res: ApiResponse, attempt: number) => number | undefined {
  return (res, attempt) => {
    if (attempt > 5) return undefined;
    const seconds = Number(res.headers['retry-after']);
    const wait = Math.ceil(((Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000) / conformanceRun.target.timeScale) + 50;
    giveTestTime(`${res.method} ${res.path} answered 429; sent again after ${wait} ms`, wait);
    return wait;
  };
}

/**
 * Gives the running test the time its client waits before sending a request again (a rate limit,
 * a transient fault), noted in its evidence. A step outside any test has no deadline to move.
 */
function giveTestTime(what: string, waitMs: number): void {
  inRunningTest((evidence, info) => {
    evidence.sentAgain.push(what);
    info.setTimeout(info.timeout + waitMs);
  });
}

/** Skips the test unless the run's profile allows the effect (run --profile): the user declared what the run may create. */
export function requireEffect(conformanceRun: ConformanceRun, effect: Effect, what: string): void {
  skipDeclared(
    !allows(conformanceRun.profile, effect),
    `the run's profile '${conformanceRun.profile}' does not allow ${effect === 'rate-limit-probe' ? 'rate-limit probes' : `creating a ${effect}`} (${what}): run with --profile ${profileFor(effect)}`,
  );
}

/**
 * Skips the test unless the target serves the operation: one the spec does not show that its
 * config leaves out of not_shown_operations (the user declared it). The test had no other evidence.
 */
function requireServed(conformanceRun: ConformanceRun, operation: Operation): void {
  skipDeclared(
    !serves(conformanceRun.target, operation),
    `target '${conformanceRun.target.name}' does not serve ${operation.operationId} (${operation.method} ${operation.path}), a path the spec does not show (its not_shown_operations), and this test has no other evidence for its rule`,
  );
}

/** The target's API key: from its config's api_key_env, or the simulator's primary key. */
export function targetApiKey(conformanceRun: ConformanceRun, credentials: PublishedCredentials | undefined): string | undefined {
  if (conformanceRun.target.apiKeyEnv) return secret(conformanceRun.target.apiKeyEnv);
  return credentials?.api_keys.find((k) => k.role === 'primary')?.key;
}

/** The key for `endpoint`: on the EU platform API an EU account's (role eu-primary) where there is one (§1). */
function endpointApiKey(conformanceRun: ConformanceRun, credentials: PublishedCredentials | undefined, endpoint: Endpoint): string | undefined {
  const eu = endpoint === 'platform-api-eu' ? credentials?.api_keys.find((k) => k.role === 'eu-primary')?.key : undefined;
  return eu ?? targetApiKey(conformanceRun, credentials);
}

function planeClient(conformanceRun: ConformanceRun, credentials: PublishedCredentials | undefined, endpoint: Endpoint, by: Attribution): ApiClient {
  const api = clientWithKey(conformanceRun, endpoint, by, endpointApiKey(conformanceRun, credentials, endpoint));
  skipDeclared(!api, `target '${conformanceRun.target.name}' names no ${endpoint} URL`);
  return api!;
}

export function requireCapability(conformanceRun: ConformanceRun, capability: Capability): void {
  skipDeclared(
    !conformanceRun.target.capabilities.includes(capability),
    `needs the '${capability}' capability, which target '${conformanceRun.target.name}' does not have`,
  );
}

/** The target's time as a test (or a step tests share) sees it: moved on a virtual clock, scaled on a real one. */
export function timeOf(conformanceRun: ConformanceRun, by: Attribution): Time {
  const virtual = conformanceRun.target.capabilities.includes('virtual-clock');
  const admin = virtual ? new SimulatorAdmin(adminOf(conformanceRun, by)) : undefined;
  return new Time(admin && ((ms) => admin.advance(ms)), conformanceRun.target.timeScale, conformanceRun.target.timeouts);
}

/** The admin protocol of the target, acting on `by`'s partition and filing the requests under its test. */
export function adminOf(conformanceRun: ConformanceRun, by: Attribution): AdminClient {
  return new AdminClient(conformanceRun.target.adminUrl!, { testId: by.testId, partition: partitionOf(conformanceRun, by) });
}

/** `texts` with the secrets the proxy at `url` knows redacted. */
async function redactedByProxy(url: string, texts: string[]): Promise<string[]> {
  const response = await fetch(redactUrl(url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(texts) });
  if (!response.ok) throw new Error(`the recording proxy could not redact what the test says: ${response.status} ${await response.text()}`);
  return (await response.json()) as string[];
}

/** Shows with this test the exchanges recorded under `id`: a step tests share (a shared deployment). */
export function recordedUnder(testInfo: TestInfo, id: string): void {
  evidenceOf(testInfo).sharedEvidence.push(id);
}

const SUITES_ARE_JAVASCRIPT = extname(import.meta.filename) === '.js';

export const test = base.extend<TestFixtures, WorkerFixtures>({
  conformanceRun: [async ({}, use, workerInfo) => use(readConformanceRun(planOf(workerInfo.config))), { scope: 'worker' }],

  // Playwright captures a source-mapped stack for every step it makes without a location (each
  // expect, each of its own fixtures). The installed package runs JavaScript that Playwright does not transform,
  // whose V8 stacks are already true, so it never maps them. In the clone the suites are TypeScript
  // whose error snippets need the map; the self-tests, which read only verdicts, drop it (--lean-stacks).
  leanStacks: [
    async ({ conformanceRun }, use) => {
      if (SUITES_ARE_JAVASCRIPT || conformanceRun.plan.options.leanStacks) Reflect.deleteProperty(Error, 'prepareStackTrace');
      await use();
    },
    { scope: 'worker', auto: true },
  ],

  targetCredentials: [
    async ({ conformanceRun }, use) => {
      const configured = conformanceRun.target.credentials;
      if (configured) {
        const entry = (c: ConfiguredCredential) => ({ role: c.role, workspaces: c.workspaces, default_workspace: c.default_workspace ?? null });
        return use({
          organization: { id: '', name: '' },
          workspaces: configured.workspaces.map((w) => ({ id: w.id, name: w.name ?? w.id })),
          api_keys: configured.api_keys.map((c) => ({ key: secret(c.env)!, ...entry(c) })),
          bearer_tokens: configured.bearer_tokens.map((c) => ({ token: secret(c.env)!, ...entry(c) })),
        });
      }
      if (!conformanceRun.target.capabilities.includes('workspace-credentials') || !conformanceRun.target.adminUrl) return use(undefined);
      const info = await new AdminClient(conformanceRun.target.adminUrl).getSimulatorInfo();
      await use(info.status === 200 ? info.json.credentials : undefined);
    },
    { scope: 'worker' },
  ],

  controlPlane: async ({ conformanceRun, targetCredentials }, use, testInfo) => {
    await use(planeClient(conformanceRun, targetCredentials, 'control-plane', testInfo));
  },

  platform: async ({ conformanceRun, targetCredentials }, use, testInfo) => {
    await use(planeClient(conformanceRun, targetCredentials, 'platform-api', testInfo));
  },

  // The EU region knows only the accounts that signed up there (§1): an EU account's key, where the target names one.
  platformEu: async ({ conformanceRun, targetCredentials }, use, testInfo) => {
    await use(planeClient(conformanceRun, targetCredentials, 'platform-api-eu', testInfo));
  },

  credentials: async ({ conformanceRun, targetCredentials }, use, testInfo) => {
    skipDeclared(
      !targetCredentials,
      `target '${conformanceRun.target.name}' has no credentials beyond its API key: name them under 'credentials:' in the target config`,
    );
    await use(new Credentials(targetCredentials!, conformanceRun, testInfo));
  },

  agent: async ({ conformanceRun }, use, testInfo) => {
    const api = client(conformanceRun, 'agent-server', testInfo);
    skipDeclared(!api, `target '${conformanceRun.target.name}' names no agent-server URL`);
    await use(api!);
  },

  clock: async ({ conformanceRun }, use, testInfo) => {
    requireCapability(conformanceRun, 'virtual-clock');
    await use(new SimulatorAdmin(adminOf(conformanceRun, testInfo)));
  },

  time: async ({ conformanceRun }, use, testInfo) => {
    await use(timeOf(conformanceRun, testInfo));
  },

  webhookReceiver: async ({ conformanceRun, time }, use, testInfo) => {
    const agentUrl = conformanceRun.target.endpoints['agent-server'];
    skipDeclared(
      !conformanceRun.target.webhookReceiverUrl && agentUrl !== undefined && !/^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/i.test(agentUrl),
      `target '${conformanceRun.target.name}' cannot reach a receiver on 127.0.0.1: set webhook_receiver_url in the target config to a public URL forwarded to the local receiver (run --webhook-receiver-port)`,
    );
    const admin =
      conformanceRun.target.capabilities.includes('webhook-activity') && conformanceRun.target.adminUrl
        ? new AdminClient(conformanceRun.target.adminUrl, { partition: partitionOf(conformanceRun, testInfo) })
        : undefined;
    const underWay = admin && (async () => answered(await admin.getWebhookActivity(), 'reading the webhook deliveries under way').under_way);
    await use(new WebhookChannel(new ReceiverClient(conformanceRun.receiver), receiverUrl(conformanceRun), hooksPath(testInfo.testId), time, underWay));
  },

  deploymentConfig: async ({ conformanceRun }, use) => {
    const config = conformanceRun.target.deploymentConfig;
    skipDeclared(
      !config,
      `the deployment configuration of target '${conformanceRun.target.name}' is unknown: name it as deployment_config in the target config`,
    );
    await use(config!);
  },

  // The auto fixtures below are the harness's own bookkeeping, boxed ('self'): no step of theirs in
  // any test, as each step costs messages to the runner and says nothing to a reader of the report.
  testStart: [
    async ({}, use) => {
      markTestStart();
      await use();
    },
    { auto: true, box: 'self' },
  ],

  // A conformance run sends thousands of requests in one frozen virtual instant: without this,
  // the §8 limits would refuse later tests for what earlier ones sent.
  rateLimitReset: [
    async ({ conformanceRun }, use, testInfo) => {
      if (conformanceRun.target.capabilities.includes('rate-limit-reset') && conformanceRun.target.adminUrl) {
        const admin = new AdminClient(conformanceRun.target.adminUrl, { partition: partitionOf(conformanceRun, testInfo) });
        answered(await admin.resetRateLimits(), 'resetting the rate-limit counters');
      }
      await use();
    },
    { auto: true, box: 'self' },
  ],

  observe: async ({}, use, testInfo) => {
    await use((ruleId, observation) => {
      const { observations } = evidenceOf(testInfo);
      if (!observations.some((o) => o.rule === ruleId && o.observation === observation)) observations.push({ rule: ruleId, observation });
    });
  },

  testKey: async ({ conformanceRun }, use, testInfo) => {
    await use(`${testInfo.testId}-${conformanceRun.runKey}`);
  },

  // The first auto fixture, so torn down last: the failures ruleChecks throws are in the record.
  evidence: [
    async ({ conformanceRun }, use, testInfo) => {
      await use();
      const evidence = evidenceOf(testInfo);
      // The proxies share one store: any of them answers for all. Steps shared between tests
      // (a shared deployment) record under ids of their own, which the tests name.
      const [url] = Object.values(conformanceRun.proxies);
      for (const id of url ? [testInfo.testId, ...evidence.sharedEvidence] : []) {
        const response = await fetch(testExchangesUrl(url, id));
        if (response.ok) evidence.exchanges.push(...((await response.json()) as Exchange[]));
      }
      const failedExchange = exchangeDescribedIn(testInfo.errors.map((e) => stripVTControlCharacters(e.message ?? e.value ?? 'error')).join('\n\n'));
      if (failedExchange) evidence.failedExchange = failedExchange;
      // An official client's request the proxy could not send on: its error is the client's own.
      if (evidence.exchanges.some(unreachableExchange)) evidence.unreachable = true;
      // The secrets the run has met are the proxies'. Redacted here, what the test says is
      // redacted wherever it goes: Playwright's result, its reporters' files, the record.
      if (url) await redactWords(testInfo, evidence, (texts) => redactedByProxy(url, texts));
      await testInfo.attach(EVIDENCE_ATTACHMENT, { body: JSON.stringify(evidence), contentType: 'application/json' });
    },
    { auto: true, box: 'self' },
  ],

  // Playwright ends a worker after each failed test, and a new one costs most of a second. The
  // self-tests' broken targets fail hundreds of tests on purpose: with --keep-workers (internal)
  // Playwright is told those failures were expected, and keeps the worker. The conformance reporter
  // reads the actual status either way; a run for a user leaves Playwright's own status true. A test
  // that timed out still ends its worker, as it may run on.
  keepWorkers: [
    async ({ conformanceRun }, use, testInfo) => {
      await use();
      if (conformanceRun.plan.options.keepWorkers && testInfo.status === 'failed') testInfo.expectedStatus = 'failed';
    },
    { auto: true, box: 'self' },
  ],

  // After keepWorkers, so torn down before it: the failures it throws are what that fixture sees.
  ruleChecks: [
    async ({}, use, testInfo) => {
      startRuleChecks();
      await use();
      endRuleChecks(testInfo);
    },
    { auto: true, box: 'self' },
  ],
});
