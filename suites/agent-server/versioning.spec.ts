// §9: features by agent server version. A server of a version that has a feature must
// honour it; an older one is not held to it.
import { expect, test } from '../../harness/fixtures.ts';
import { precondition } from '../../harness/checks/index.ts';
import { skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient } from '../../harness/client.ts';
import { describeDelivery } from '../../harness/webhook-receiver.ts';
import { newThread } from './runs-steps.ts';
import { deliveredRun, describeCount } from './webhooks-steps.ts';

/** The server's version, as GET /info names it (VERSION-AGENT-SERVER-INFO judges that read). */
async function serverVersion(agent: ApiClient): Promise<number[]> {
  const res = await agent.get<{ version?: unknown }>('/info');
  precondition(res, 'read the server version', ['VERSION-AGENT-SERVER-INFO']);
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(res.json.version ?? ''));
  if (!match) skipForPrecondition(`precondition failed: the target names no dotted version in GET /info: ${res.describe()}`, ['VERSION-AGENT-SERVER-INFO']);
  return match.slice(1).map(Number);
}

const atLeast = (version: number[], wanted: number[]) => {
  for (let i = 0; i < wanted.length; i++) if (version[i] !== wanted[i]) return version[i] > wanted[i];
  return true;
};

test('a server of 0.5.36 or later sends the configured webhooks.headers', { tag: '@VERSION-WEBHOOK-HEADERS-0-5-36' }, async ({
  agent,
  webhookReceiver,
  deploymentConfig,
}) => {
  const version = await serverVersion(agent);
  skipDeclared(!atLeast(version, [0, 5, 36]), `the server is version ${version.join('.')}, older than 0.5.36`);
  const headers = Object.entries(deploymentConfig.webhooks?.headers ?? {}).filter(([, value]) => !value.includes('${{'));
  skipDeclared(headers.length === 0, "the target's deployment configuration sets no static webhooks.headers");
  const { delivery } = await deliveredRun(agent, webhookReceiver, 'versioned');
  for (const [header, value] of headers)
    expect(delivery.headers[header.toLowerCase()], describeDelivery(delivery, `header ${header} on a ${version.join('.')} server`)).toBe(value);
});

test('a server of 0.2.78 or later honours http.disable_webhooks', { tag: '@VERSION-DISABLE-WEBHOOKS-0-2-78' }, async ({
  agent,
  webhookReceiver: hooks,
  deploymentConfig,
}) => {
  const version = await serverVersion(agent);
  skipDeclared(!atLeast(version, [0, 2, 78]), `the server is version ${version.join('.')}, older than 0.2.78`);
  const disabled = deploymentConfig.http?.disable_webhooks === true;
  const thread = await newThread(agent);
  const res = await agent.post(`/threads/${thread}/runs/wait`, {
    assistant_id: 'agent',
    input: { topic: 'versioned' },
    webhook: hooks.url('versioned-disable'),
  });
  precondition(res, 'run with a webhook');
  // Either way the target has its whole webhook timeout to deliver: a delivery that is late is still one.
  const delivered = await hooks.waitFor(1, 'versioned-disable');
  expect(delivered.length, describeCount(delivered, disabled ? 0 : 1, `http.disable_webhooks is ${disabled} on a ${version.join('.')} server`)).toBe(
    disabled ? 0 : 1,
  );
});
