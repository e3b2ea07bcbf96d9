// A cron starts a run at each time its schedule names (platform-facts §1.10): a thread cron
// on its thread, a stateless cron on a new thread each time. Needs the virtual clock: a real
// cron runs at most once a minute.
import { expect, test } from '../fixtures.ts';
import { preconditionArray } from '../checks/index.ts';
import { newThread } from './runs.ts';
import { createCron, deleteCrons, untilNextRun, type Payload } from './webhooks-steps.ts';

test.describe('a cron runs at each time of its schedule', { tag: '@CRON-RUNS-ON-SCHEDULE' }, () => {
  test('a thread cron starts one run on its thread each time, none in between', async ({ agent, time }) => {
    test.skip(!time.virtual, 'needs the virtual clock: a real cron runs at most once a minute');
    const threadId = await newThread(agent);
    const cron = await createCron(agent, threadId, { schedule: '*/2 * * * *', input: { topic: 'scheduled' } });
    const runs = async () => preconditionArray(await agent.get<unknown[]>(`/threads/${threadId}/runs`), 'list the runs').length;
    try {
      await time.pass(untilNextRun(cron) - 2);
      expect(await runs(), 'no run before the first scheduled time').toBe(0);
      await time.pass(1);
      expect(await runs(), 'one run at the first scheduled time').toBe(1);
      await time.pass(60_000);
      expect(await runs(), 'none a minute later: the schedule is every 2 minutes').toBe(1);
      await time.pass(60_000);
      expect(await runs(), 'the second run at the next scheduled time').toBe(2);
    } finally {
      await deleteCrons(agent, cron);
    }
  });

  test('a stateless cron starts each run on a new thread', async ({ agent, time, webhookReceiver: hooks }) => {
    test.skip(!time.virtual, 'needs the virtual clock: a real cron runs at most once a minute');
    const cron = await createCron(agent, null, { schedule: '* * * * *', webhook: hooks.url('stateless') });
    try {
      await time.pass(untilNextRun(cron));
      await hooks.waitFor(1, 'stateless');
      await time.pass(60_000);
      const deliveries = await hooks.waitFor(2, 'stateless');
      const threads = deliveries.map((d) => (d.json as Payload | undefined)?.thread_id);
      expect(threads, 'one run for each of the two times').toHaveLength(2);
      expect(threads[0], 'each on its own thread').not.toBe(threads[1]);
    } finally {
      await deleteCrons(agent, cron);
    }
  });
});
