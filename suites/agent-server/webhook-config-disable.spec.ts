// §6: http.disable_webhooks in the deployment configuration turns notifications off; runs
// still execute.
import { expect, test } from '../../harness/fixtures.ts';
import { precondition } from '../../harness/checks/index.ts';
import type { Run } from '../../specs/types/agent-server.ts';
import { newThread, readRun } from './runs-steps.ts';
import { describeCount } from './webhooks-steps.ts';

test('with http.disable_webhooks true no notification is sent, and the run still executes; otherwise it is sent', {
  tag: '@WEBHOOK-CONFIG-DISABLE-WEBHOOKS',
}, async ({ agent, webhookReceiver: hooks, deploymentConfig }) => {
  const disabled = deploymentConfig.http?.disable_webhooks === true;
  const threadId = await newThread(agent);
  const res = await agent.post<{ run_id: string }>(`/threads/${threadId}/runs/wait`, {
    assistant_id: 'agent',
    input: { topic: 'disable' },
    webhook: hooks.url('disable'),
  });
  precondition(res, 'run with a webhook');
  const runs = await agent.get<Run[]>(`/threads/${threadId}/runs`);
  precondition(runs, 'list the runs');
  expect((await readRun(agent, threadId, runs.json[0].run_id)).status, 'the run executed').toBe('success');
  if (!disabled) await hooks.waitFor(1, 'disable');
  await hooks.settle();
  const received = await hooks.received('disable');
  expect(received.length, describeCount(received, disabled ? 0 : 1, `http.disable_webhooks is ${disabled}`)).toBe(disabled ? 0 : 1);
});
