// §6: http.disable_webhooks in the deployment configuration turns notifications off; runs
// still execute.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus, preconditionArray } from '../../harness/checks/index.ts';
import type { Run } from '../../specs/types/agent-server.ts';
import { newThread, readRun } from './runs-steps.ts';

test('with http.disable_webhooks true no notification is sent, and the run still executes; otherwise it is sent', {
  tag: '@WEBHOOK-CONFIG-DISABLE-WEBHOOKS',
}, async ({ agent, webhookReceiver: hooks, deploymentConfig }) => {
  const disabled = deploymentConfig.http?.disable_webhooks === true;
  const threadId = await newThread(agent);
  // The run with a webhook is the one the rule speaks of: it must execute either way.
  const res = await agent.post(`/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: { topic: 'disable' }, webhook: hooks.url('disable') });
  expectStatus(res, '2xx');
  const [run] = preconditionArray(await agent.get<Run[]>(`/threads/${threadId}/runs`), 'list the runs', 1);
  expect((await readRun(agent, threadId, run.run_id)).status, 'the run executed').toBe('success');
  // A notification sent late counts as sent: what arrived within the delivery deadline is judged.
  await hooks.settle();
  expect((await hooks.received('disable')).length, `http.disable_webhooks is ${disabled}`).toBe(disabled ? 0 : 1);
});
