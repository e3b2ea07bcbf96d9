// A cron starts a run at each time its schedule names (the Agent Server OpenAPI, docs.langchain.com/langsmith/agent-server-openapi.json): a thread cron
// on its thread, a stateless cron on a new thread each time. Exact on a virtual clock; in real
// time a cron runs at most once a minute, so these tests wait for its times, up to the
// target's cron timeout past each.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus, preconditionArray } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { describeDelivery } from '../../harness/webhook-receiver.ts';
import { newThread } from './runs-steps.ts';
import { createCron, deleteCrons, describeCount, isDateTime, madeAtKnown, untilNextRun, type Cron, type Payload } from './webhooks-steps.ts';

test.describe('a cron runs at each time of its schedule', { tag: '@CRON-RUNS-ON-SCHEDULE' }, () => {
  test('a thread cron starts one run on its thread each time, none in between', async ({ agent, time }) => {
    const threadId = await newThread(agent);
    const schedule = '*/2 * * * *';
    const cron = await createCron(agent, threadId, { schedule, input: { topic: 'scheduled' } });
    // "No run before the first time" needs that time exactly: from when the cron was made.
    if (!madeAtKnown(cron))
      skipForPrecondition(`precondition failed: the cron's answer names no created_at: ${JSON.stringify(cron)}`, ['CRON-CREATE-SCHEDULE']);
    const runs = async () => preconditionArray(await agent.get<unknown[]>(`/threads/${threadId}/runs`), 'list the runs').length;
    try {
      if (time.virtual) {
        await time.pass(untilNextRun(cron, schedule) - 2);
        expect(await runs(), 'no run before the first scheduled time').toBe(0);
        await time.pass(1);
        expect(await runs(), 'one run at the first scheduled time').toBe(1);
      } else {
        time.allowFor(untilNextRun(cron, schedule) + 2 * 60_000, 'cron', 'cron');
        // Only where the first time is not about to come, so that the read surely precedes it.
        if (untilNextRun(cron, schedule) > 30_000) expect(await runs(), 'no run before the first scheduled time').toBe(0);
        const first = await time.poll(runs, (n) => n >= 1, { deadline: untilNextRun(cron, schedule) + time.timeouts.cron, what: "the cron's first run" });
        expect(first.value, 'one run at the first scheduled time').toBe(1);
      }
      await time.pass(60_000, 'a minute without a run of the cron');
      expect(await runs(), 'none a minute later: the schedule is every 2 minutes').toBe(1);
      if (time.virtual) await time.pass(60_000);
      else await time.poll(runs, (n) => n >= 2, { deadline: 60_000 + time.timeouts.cron, what: "the cron's second run" });
      expect(await runs(), 'the second run at the next scheduled time').toBe(2);
    } finally {
      await deleteCrons(agent, cron);
    }
  });

  test('a stateless cron starts each run on a new thread', async ({ agent, time, webhookReceiver: hooks }) => {
    const schedule = '* * * * *';
    const cron = await createCron(agent, null, { schedule, webhook: hooks.url('stateless') });
    try {
      time.allowFor(untilNextRun(cron, schedule) + 60_000, 'cron', 'cron');
      if (time.virtual) await time.pass(untilNextRun(cron, schedule));
      await hooks.waitFor(1, 'stateless', time.virtual ? undefined : time.wall(untilNextRun(cron, schedule) + time.timeouts.cron));
      if (time.virtual) await time.pass(60_000);
      const deliveries = await hooks.waitFor(2, 'stateless', time.virtual ? undefined : time.wall(60_000 + time.timeouts.cron));
      const threads = deliveries.map((d) => (d.json as Payload | undefined)?.thread_id);
      expect(threads, describeCount(deliveries, 2, 'one run for each of the two times')).toHaveLength(2);
      expect(threads[0], describeDelivery(deliveries[1], 'each on its own thread')).not.toBe(threads[1]);
    } finally {
      await deleteCrons(agent, cron);
    }
  });
});

// A timezone moves the times the schedule names: 04:30 in Asia/Kolkata (UTC+05:30 all year, no
// daylight saving) is 23:00 UTC, the time of the cron's next run. The cron made with it is the
// request judged, for a thread cron and a stateless one.
test('a cron given a timezone reads its schedule there, not in UTC', { tag: '@CRON-RUNS-ON-SCHEDULE' }, async ({ agent }) => {
  const threadId = await newThread(agent);
  for (const path of [`/threads/${threadId}/runs/crons`, '/runs/crons']) {
    const res = await agent.post<Cron>(path, { assistant_id: 'agent', schedule: '30 4 * * *', timezone: 'Asia/Kolkata', metadata: agent.conformanceMark });
    try {
      expectStatus(res, '2xx');
      const next = res.json.next_run_date;
      if (!isDateTime(next)) {
        skipForPrecondition(`precondition failed: the cron names no next_run_date to read its times from: ${res.describe()}`, ['CRON-CREATE-SCHEDULE']);
      }
      const at = new Date(next);
      expect([at.getUTCHours(), at.getUTCMinutes()], res.describe('04:30 Asia/Kolkata is 23:00 UTC')).toEqual([23, 0]);
    } finally {
      await deleteCrons(agent, res.json);
    }
  }
});
