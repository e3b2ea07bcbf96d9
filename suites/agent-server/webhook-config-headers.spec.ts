// §5, §6: webhooks.headers of the deployment configuration, with ${{ env.VAR }} references
// under webhooks.env_prefix. A suite sees the configuration the target runs with (only a
// simulator publishes it); how a server refuses a bad one at startup (WEBHOOK-CONFIG-ENV-MISSING,
// which a running target cannot show) is checked by the project test simulator/deployment-config.test.ts.
import { secret } from '../../harness/environment.ts';
import { expect, test } from '../../harness/fixtures.ts';
import { precondition } from '../../harness/checks/index.ts';
import { describeDelivery } from '../../harness/webhook-receiver.ts';
import { skipDeclared } from '../../harness/checks/attribution.ts';
import { newThread } from './runs-steps.ts';
import { deliveredRun } from './webhooks-steps.ts';

const TEMPLATE = /\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/**
 * Without env_prefix, the spec says only that the default ends in WEBHOOK_ (the service's is
 * LG_WEBHOOK_, LangSmith docs "Use webhooks", docs.langchain.com/langsmith/use-webhooks): a referenced name must then hold it after some prefix.
 */
const underDefaultPrefix = (name: string) => /^[A-Za-z0-9_]*WEBHOOK_/.test(name);

const references = (value: string) => [...value.matchAll(TEMPLATE)].map((m) => m[1]);

test('every static header of webhooks.headers comes with every notification', { tag: '@WEBHOOK-CONFIG-HEADERS' }, async ({
  agent,
  webhookReceiver,
  deploymentConfig,
  time,
}) => {
  const headers = Object.entries(deploymentConfig.webhooks?.headers ?? {}).filter(([, value]) => references(value).length === 0);
  skipDeclared(headers.length === 0, "the target's deployment configuration sets no static webhooks.headers");
  for (const name of ['first', 'second']) {
    const { delivery } = await deliveredRun(agent, webhookReceiver, name);
    for (const [header, value] of headers)
      expect(delivery.headers[header.toLowerCase()], describeDelivery(delivery, `header ${header} on notification ${name}`)).toBe(value);
  }
  // A retry is an outbound webhook request too (where the target retries: WEBHOOK-RETRY judges that).
  await webhookReceiver.failNext(1, { status: 503 }, 'retried');
  const threadId = await newThread(agent);
  precondition(
    await agent.post(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { topic: 'retried' }, webhook: webhookReceiver.url('retried') }),
    'create a run with a webhook',
  );
  if (time.virtual) {
    await webhookReceiver.waitFor(1, 'retried');
    await time.pass(60_000);
  }
  const attempts = await webhookReceiver.waitFor(2, 'retried');
  for (const [i, attempt] of attempts.entries()) {
    for (const [header, value] of headers)
      expect(attempt.headers[header.toLowerCase()], describeDelivery(attempt, `header ${header} on attempt ${i + 1} of a retried notification`)).toBe(value);
  }
});

test('a ${{ env.VAR }} reference in a header value arrives replaced by the variable', { tag: '@WEBHOOK-CONFIG-HEADERS-ENV' }, async ({
  agent,
  webhookReceiver,
  deploymentConfig,
}) => {
  // The variable is read here, in the test's environment, which must match the target's.
  const templated = Object.entries(deploymentConfig.webhooks?.headers ?? {}).filter(([, value]) => {
    const names = references(value);
    return names.length > 0 && names.every((n) => secret(n) !== undefined);
  });
  skipDeclared(templated.length === 0, "the target's deployment configuration has no header referencing a variable set in this environment");
  const { delivery } = await deliveredRun(agent, webhookReceiver, 'env');
  for (const [header, template] of templated) {
    expect(delivery.headers[header.toLowerCase()], describeDelivery(delivery, `header ${header} = ${template}`)).toBe(
      template.replace(TEMPLATE, (_m, name: string) => secret(name)!),
    );
  }
});

test('a running server substitutes only variables under env_prefix, a vendor prefix ending in WEBHOOK_ by default', {
  tag: '@WEBHOOK-CONFIG-ENV-PREFIX',
}, async ({ agent, webhookReceiver, deploymentConfig }) => {
  const prefix = deploymentConfig.webhooks?.env_prefix;
  const templated = Object.entries(deploymentConfig.webhooks?.headers ?? {}).filter(([, value]) => references(value).length > 0);
  skipDeclared(templated.length === 0, "the target's deployment configuration references no environment variable");
  // A reference outside the prefix should have stopped the server; one inside it is substituted.
  for (const [header, template] of templated) {
    for (const name of references(template)) {
      const under = prefix === undefined ? underDefaultPrefix(name) : name.startsWith(prefix);
      expect(under, `${header} references ${name}, outside env_prefix '${prefix ?? 'the default, ending in WEBHOOK_'}', yet the server runs`).toBe(true);
    }
  }
  const { delivery } = await deliveredRun(agent, webhookReceiver, 'prefix');
  for (const [header] of templated)
    expect(delivery.headers[header.toLowerCase()] ?? '', describeDelivery(delivery, `header ${header} is substituted`)).not.toMatch(/\$\{\{/);
});
