// §6: http.disable_webhooks in the deployment configuration turns notifications off; runs
// still execute.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus } from '../../harness/checks/index.ts';
import { newThread } from './runs-steps.ts';
import { describeCount } from './webhooks-steps.ts';

test('with http.disable_webhooks true no notification is sent, and the run still executes; otherwise it is sent', {
  tag: '@WEBHOOK-CONFIG-DISABLE-WEBHOOKS',
}, async ({ agent, webhookReceiver: hooks, deploymentConfig }) => {
  const disabled = deploymentConfig.http?.disable_webhooks === true;
  const threadId = await newThread(agent);
  // The run with a webhook is the one the rule speaks of: it must execute either way, and the
  // wait answers its result (RUN-WAIT: the run's answer, in whatever form).
  const res = await agent.post(`/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: { topic: 'disable' }, webhook: hooks.url('disable') });
  expectStatus(res, '2xx');
  expect(res.text, res.describe('the run executed')).toContain('echo: disable');
  // A notification sent late counts as sent: what arrived within the delivery deadline is judged.
  await hooks.settle();
  const received = await hooks.received('disable');
  expect(received.length, describeCount(received, disabled ? 0 : 1, `http.disable_webhooks is ${disabled}`)).toBe(disabled ? 0 : 1);
});
