// DELETE /runs/crons/{cron_id} (the open-source agent server, langgraph-api): 204, the cron is gone and starts
// nothing more; an unknown id is a 404.
import { expect, test } from '../../harness/fixtures.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expectJsonError, expectStatus, preconditionArray } from '../../harness/checks/index.ts';
import { newThread } from './runs-steps.ts';
import { createCron, untilNextRun, type Cron } from './webhooks-steps.ts';

test('delete answers 204, the search no longer finds the cron, and deleting it again is a 404', { tag: '@CRON-DELETE' }, async ({ agent }) => {
  const threadId = await newThread(agent);
  const cron = await createCron(agent, threadId, { schedule: '0 0 * * *' });
  // Found before, so that not found after says it is gone, not that the search finds nothing.
  const before = preconditionArray(await agent.post<Cron[]>('/runs/crons/search', { thread_id: threadId }), "search the thread's crons");
  if (!before.some((c) => c.cron_id === cron.cron_id)) {
    skipForPrecondition(`precondition failed: the search does not find the cron ${cron.cron_id} before its delete`, ['CRON-SEARCH']);
  }
  expectStatus(await agent.delete(`/runs/crons/${cron.cron_id}`), 204);
  // The search that found it is how the rule's "no longer" is seen: judged, not a step.
  const found = await agent.post<Cron[]>('/runs/crons/search', { thread_id: threadId });
  expectStatus(found, 200);
  expect(Array.isArray(found.json) ? found.json.map((c) => c.cron_id) : found.json, found.describe('the deleted cron is gone')).toEqual([]);
  expectJsonError(await agent.delete(`/runs/crons/${cron.cron_id}`), 404);
  expectJsonError(await agent.delete('/runs/crons/00000000-0000-4000-8000-000000000000'), 404);
});

const EVERY_MINUTE = '* * * * *';

test('a deleted cron starts no more runs', { tag: '@CRON-DELETE' }, async ({ agent, time }) => {
  const threadId = await newThread(agent);
  const cron = await createCron(agent, threadId, { schedule: EVERY_MINUTE });
  const runs = async () => preconditionArray(await agent.get<unknown[]>(`/threads/${threadId}/runs`), 'list the runs').length;
  time.allowFor(untilNextRun(cron, EVERY_MINUTE) + 90_000, 'cron');
  let ran: number;
  if (time.virtual) {
    await time.pass(untilNextRun(cron, EVERY_MINUTE));
    ran = await runs();
  } else {
    // A real cron: its first run, within its time and the target's cron timeout.
    ran = (await time.poll(runs, (n) => n >= 1, { deadline: untilNextRun(cron, EVERY_MINUTE) + time.timeouts.cron, what: "the cron's first run" })).value;
  }
  if (ran !== 1) skipForPrecondition(`precondition failed: the cron started ${ran} runs in its first minute, not 1`, ['CRON-RUNS-ON-SCHEDULE']);
  expectStatus(await agent.delete(`/runs/crons/${cron.cron_id}`), 204);
  // Past at least one more of its times (three on a virtual clock, where they cost nothing).
  await time.pass(time.virtual ? 3 * 60_000 : 90_000, 'a deleted cron to start no run');
  expect(await runs(), 'no run after the delete').toBe(1);
});
