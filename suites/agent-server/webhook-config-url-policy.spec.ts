// §6 webhooks.url: which webhook URLs a target refuses at run or cron creation, read against
// the deployment configuration it runs with (only a simulator publishes it). Each test builds
// URLs that break one setting and keep every other; a setting the configuration leaves out is
// not checked here (the project test simulator/agent-server/webhook-policy.test.ts sets them
// all). A URL that is accepted stays behind a run that keeps its thread busy on the virtual
// clock, so nothing is sent to the made-up hosts.
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectRefused, precondition } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { servesOperation } from '../../harness/target.ts';
import type { Time } from '../../harness/time.ts';
import { hostMatches, type UrlPolicy } from '../../specs/url-policy.ts';
import { skipDeclared } from '../../harness/checks/attribution.ts';
import { newThread } from './runs-steps.ts';
import { expectNoOtherCron } from './webhooks-steps.ts';

const DENIED_HOST = 'apc-denied.invalid';
const HOLD_MS = 10 * 24 * 3600 * 1000;

type Attempt = { res: ApiResponse; runsBefore?: number; runsAfter?: number };

/** What tryWebhook uses of a test's fixtures. */
type Fixtures = { agent: ApiClient; time: Time; conformanceRun: ConformanceRun };

/**
 * Creates a run with `webhook` through `path` on a new thread that already has a run. With `hold`
 * (on a virtual clock) that run holds the thread, and the new one, if accepted, waits behind it, so
 * nothing is sent to the made-up hosts; without, it has completed. Where the target lists a
 * thread's runs (a path the spec does not show) and the list shows that first run, the runs are
 * counted before and after, so that a refused URL can be seen to have created nothing.
 */
async function tryWebhook(
  { agent, time, conformanceRun }: Fixtures,
  webhook: string,
  path = (t: string) => `/threads/${t}/runs`,
  hold = time.virtual,
): Promise<Attempt> {
  const threadId = await newThread(agent);
  const first = hold
    ? await agent.post(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { delay_ms: HOLD_MS } })
    : await agent.post(`/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: {} });
  precondition(first, 'a first run on the thread');
  const lists = servesOperation(conformanceRun.target, 'agent-server', 'listRuns');
  const count = async () => {
    const res = await agent.get<unknown[]>(`/threads/${threadId}/runs`);
    return res.status === 200 && Array.isArray(res.json) ? res.json.length : undefined;
  };
  const runsBefore = lists ? await count() : undefined;
  const res = await agent.post(path(threadId), { assistant_id: 'agent', input: {}, webhook, multitask_strategy: 'enqueue' });
  // A list that does not show the first run cannot show that none was added (RUN-LIST judges it).
  return runsBefore === 1 ? { res, runsBefore, runsAfter: await count() } : { res };
}

function expectAccepted({ res }: Attempt, why: string): void {
  expect(res.status >= 200 && res.status < 300, res.describe(`accepted: ${why}`)).toBe(true);
}

/** Refused, as far as §6 says (a URL is refused: no status, no body is shown), and no run was created where the runs were counted. */
function expectUrlRefused(attempt: Attempt, why: string): void {
  expectRefused(attempt.res);
  if (attempt.runsBefore !== undefined) expect(attempt.runsAfter, attempt.res.describe(`no run was created (${why})`)).toBe(attempt.runsBefore);
}

/** A host the allowlist admits (any host when there is none): a made-up subdomain of a wildcard entry where there is one. */
function allowedHost(policy: UrlPolicy): string {
  const domains = policy.allowed_domains ?? [];
  const entry = domains.find((d) => d.startsWith('*.')) ?? domains[0];
  return entry === undefined ? 'hooks.apc-conformance.invalid' : entry.startsWith('*.') ? `apc-hooks${entry.slice(1)}` : entry;
}

/** `:port` for an https URL the port list admits ('' for the implied 443). */
function allowedPortSuffix(policy: UrlPolicy): string {
  const ports = policy.allowed_ports;
  return !ports || ports.includes(443) ? '' : `:${ports[0]}`;
}

/** An https URL that keeps every setting of the policy, `path` included. */
function compliant(policy: UrlPolicy, path = '/hook'): string {
  return `https://${allowedHost(policy)}${allowedPortSuffix(policy)}${path}`;
}

function urlPolicy(config: { webhooks?: { url?: UrlPolicy } }): UrlPolicy {
  const policy = config.webhooks?.url;
  skipDeclared(
    !policy,
    "the target's deployment configuration sets no webhooks.url policy (simulator/agent-server/webhook-policy.test.ts checks one that does)",
  );
  return policy!;
}

test('allowed_domains admits its hosts, *.<domain> its subdomains, and refuses any other host', { tag: '@WEBHOOK-CONFIG-ALLOWED-DOMAINS' }, async ({
  agent,
  time,
  conformanceRun,
  deploymentConfig,
}) => {
  const policy = urlPolicy(deploymentConfig);
  const domains = policy.allowed_domains ?? [];
  skipDeclared(domains.length === 0, "the target's webhooks.url sets no allowed_domains");
  skipDeclared(
    domains.some((d) => hostMatches(DENIED_HOST, d)),
    `the allowlist admits ${DENIED_HOST}`,
  );
  for (const domain of domains) {
    const host = domain.startsWith('*.') ? `apc-hooks${domain.slice(1)}` : domain;
    expectAccepted(await tryWebhook({ agent, time, conformanceRun }, `https://${host}${allowedPortSuffix(policy)}/hook`), `${host} is allowed by '${domain}'`);
  }
  expectUrlRefused(
    await tryWebhook({ agent, time, conformanceRun }, `https://${DENIED_HOST}${allowedPortSuffix(policy)}/hook`),
    `${DENIED_HOST} is in no entry of ${domains.join(', ')}`,
  );
});

test('with require_https true an http:// URL is refused; without it, it is accepted', { tag: '@WEBHOOK-CONFIG-REQUIRE-HTTPS' }, async ({
  agent,
  time,
  conformanceRun,
  deploymentConfig,
}) => {
  const policy = deploymentConfig.webhooks?.url ?? {};
  const ports = policy.allowed_ports;
  // The port is named: which port an http URL without one is on is WEBHOOK-CONFIG-ALLOWED-PORTS's to judge.
  const port = !ports ? '' : `:${ports.includes(80) ? 80 : ports[0]}`;
  const http = await tryWebhook({ agent, time, conformanceRun }, `http://${allowedHost(policy)}${port}/hook`);
  if (policy.require_https === true) {
    expectUrlRefused(http, 'require_https is true');
    expectAccepted(await tryWebhook({ agent, time, conformanceRun }, compliant(policy)), 'the same host over https');
  } else {
    expectAccepted(http, 'require_https is not true');
  }
});

test('allowed_ports admits the ports it lists, 443 when an https URL names none, 80 when an http URL does, and refuses others', {
  tag: '@WEBHOOK-CONFIG-ALLOWED-PORTS',
}, async ({ agent, time, conformanceRun, deploymentConfig }) => {
  const policy = urlPolicy(deploymentConfig);
  const ports = policy.allowed_ports;
  skipDeclared(!ports, "the target's webhooks.url sets no allowed_ports");
  const host = allowedHost(policy);
  for (const port of ports!) expectAccepted(await tryWebhook({ agent, time, conformanceRun }, `https://${host}:${port}/hook`), `port ${port} is listed`);
  const outside = [8443, 9443, 10443, 2].find((p) => !ports!.includes(p))!;
  expectUrlRefused(await tryWebhook({ agent, time, conformanceRun }, `https://${host}:${outside}/hook`), `port ${outside} is not in ${ports!.join(', ')}`);
  const implied = await tryWebhook({ agent, time, conformanceRun }, `https://${host}/hook`);
  if (ports!.includes(443)) expectAccepted(implied, 'an https URL without a port is on 443, which is listed');
  else expectUrlRefused(implied, 'an https URL without a port is on 443, which is not listed');
  // http defaults to 80 (§6); where https is required an http URL is refused whatever its port.
  if (policy.require_https !== true) {
    const impliedHttp = await tryWebhook({ agent, time, conformanceRun }, `http://${host}/hook`);
    if (ports!.includes(80)) expectAccepted(impliedHttp, 'an http URL without a port is on 80, which is listed');
    else expectUrlRefused(impliedHttp, 'an http URL without a port is on 80, which is not listed');
  }
});

test('with disable_loopback true a relative webhook URL is refused; with false it is accepted', { tag: '@WEBHOOK-CONFIG-DISABLE-LOOPBACK' }, async ({
  agent,
  time,
  conformanceRun,
  deploymentConfig,
}) => {
  const policy = urlPolicy(deploymentConfig);
  skipDeclared(policy.disable_loopback === undefined, "the target's webhooks.url does not set disable_loopback, and the spec gives no default");
  const relative = await tryWebhook({ agent, time, conformanceRun }, '/threads/search');
  if (policy.disable_loopback) expectUrlRefused(relative, 'disable_loopback is true');
  else expectAccepted(relative, 'disable_loopback is false');
});

test('a URL of max_url_length characters is accepted and a longer one refused', { tag: '@WEBHOOK-CONFIG-MAX-URL-LENGTH' }, async ({
  agent,
  time,
  conformanceRun,
  deploymentConfig,
}) => {
  const policy = urlPolicy(deploymentConfig);
  const max = policy.max_url_length;
  skipDeclared(max === undefined, "the target's webhooks.url sets no max_url_length");
  const base = compliant(policy, '/');
  skipDeclared(base.length >= max!, `max_url_length ${max} is shorter than any URL the policy admits`);
  const padded = (length: number) => `${base}${'x'.repeat(length - base.length)}`;
  expectAccepted(await tryWebhook({ agent, time, conformanceRun }, padded(max!)), `${max} characters`);
  expectUrlRefused(await tryWebhook({ agent, time, conformanceRun }, padded(max! + 1)), `${max! + 1} characters`);
});

test('the longest webhook URL a target accepts', { tag: '@WEBHOOK-CONFIG-MAX-URL-LENGTH-VALUE' }, async ({
  agent,
  time,
  conformanceRun,
  webhookReceiver,
  observe,
}) => {
  const base = `${webhookReceiver.url('length')}?pad=`;
  const seen: string[] = [];
  for (const length of [2048, 4096, 4097, 8192, 65536]) {
    const { res } = await tryWebhook({ agent, time, conformanceRun }, `${base}${'x'.repeat(length - base.length)}`);
    seen.push(`${length}: ${res.status}`);
  }
  observe('WEBHOOK-CONFIG-MAX-URL-LENGTH-VALUE', `status of run creation by webhook URL length (characters): ${seen.join(', ')}`);
});

test.describe('a URL the policy refuses answers 422 with a JSON error at every creating endpoint, and creates nothing', {
  tag: '@WEBHOOK-CONFIG-VIOLATION-422',
}, () => {
  /** A URL breaking one setting the policy sets, or undefined when it sets none that can be broken. */
  function violating(policy: UrlPolicy): string | undefined {
    if (policy.allowed_domains?.length && !policy.allowed_domains.some((d) => hostMatches(DENIED_HOST, d)))
      return `https://${DENIED_HOST}${allowedPortSuffix(policy)}/hook`;
    if (policy.allowed_ports && !policy.allowed_ports.includes(9)) return `https://${allowedHost(policy)}:9/hook`;
    if (policy.require_https) return `http://${allowedHost(policy)}/hook`;
    if (policy.max_url_length !== undefined) return compliant(policy, `/${'x'.repeat(policy.max_url_length)}`);
    if (policy.disable_loopback) return '/threads/search';
    return undefined;
  }

  for (const [operation, path] of [
    ['create run', (t: string) => `/threads/${t}/runs`],
    ['stream run', (t: string) => `/threads/${t}/runs/stream`],
    ['wait run', (t: string) => `/threads/${t}/runs/wait`],
  ] as const) {
    test(`${operation}`, async ({ agent, time, conformanceRun, deploymentConfig }) => {
      const webhook = violating(urlPolicy(deploymentConfig));
      skipDeclared(!webhook, "the target's webhooks.url sets nothing a URL can break");
      // No run holds the thread: a wait or stream wrongly accepted must end.
      const attempt = await tryWebhook({ agent, time, conformanceRun }, webhook!, path, false);
      expectJsonError(attempt.res, 422);
      if (attempt.runsBefore !== undefined) expect(attempt.runsAfter, 'no run was created').toBe(attempt.runsBefore);
    });
  }

  for (const [operation, path] of [
    ['stateless stream', '/runs/stream'],
    ['stateless wait', '/runs/wait'],
  ] as const) {
    test(`${operation}`, async ({ agent, deploymentConfig }) => {
      const webhook = violating(urlPolicy(deploymentConfig));
      skipDeclared(!webhook, "the target's webhooks.url sets nothing a URL can break");
      expectJsonError(await agent.post(path, { assistant_id: 'agent', input: {}, webhook }), 422);
    });
  }

  test('create thread cron', async ({ agent, deploymentConfig }) => {
    const webhook = violating(urlPolicy(deploymentConfig));
    skipDeclared(!webhook, "the target's webhooks.url sets nothing a URL can break");
    const threadId = await newThread(agent);
    expectJsonError(await agent.post(`/threads/${threadId}/runs/crons`, { assistant_id: 'agent', schedule: '0 0 * * *', webhook }), 422);
    await expectNoOtherCron(agent, threadId, '', 'the refused webhook');
  });

  test('create cron', async ({ agent, deploymentConfig, testKey }) => {
    const webhook = violating(urlPolicy(deploymentConfig));
    skipDeclared(!webhook, "the target's webhooks.url sets nothing a URL can break");
    expectJsonError(await agent.post('/runs/crons', { assistant_id: 'agent', schedule: '0 0 * * *', webhook, metadata: { apc_test: testKey } }), 422);
    await expectNoOtherCron(agent, null, testKey, 'the refused webhook');
  });
});
