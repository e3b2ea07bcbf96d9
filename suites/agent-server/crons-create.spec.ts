// §4.5: the cron endpoints accept `webhook`; their bodies are not shown, the reference's are
// (the Agent Server OpenAPI, docs.langchain.com/langsmith/agent-server-openapi.json). Crons here run daily at most, and are deleted at the end.
import { expect, test } from '../../harness/fixtures.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import type { Thread } from '../../specs/types/agent-server.ts';
import { newThread } from './runs-steps.ts';
import { deleteCrons, expectNoOtherCron, isDateTime, type Cron } from './webhooks-steps.ts';

const DAILY = '0 0 * * *';

test('POST /threads/{thread_id}/runs/crons accepts webhook in its body', { tag: '@CRON-THREAD-CREATE' }, async ({ agent, webhookReceiver }) => {
  const threadId = await newThread(agent);
  const res = await agent.post<Cron>(`/threads/${threadId}/runs/crons`, {
    assistant_id: 'agent',
    schedule: DAILY,
    webhook: webhookReceiver.url('thread-cron'),
  });
  await deleteCrons(agent, res.json);
  expectStatus(res, '2xx');
});

test('POST /runs/crons accepts webhook in its body', { tag: '@CRON-CREATE' }, async ({ agent, webhookReceiver }) => {
  const res = await agent.post<Cron>('/runs/crons', { assistant_id: 'agent', schedule: DAILY, webhook: webhookReceiver.url('cron') });
  await deleteCrons(agent, res.json);
  expectStatus(res, '2xx');
});

test.describe('a cron takes assistant_id and schedule, and answers its cron_id, schedule and next run date', { tag: '@CRON-CREATE-SCHEDULE' }, () => {
  for (const [kind, thread] of [
    ['thread cron', true],
    ['stateless cron', false],
  ] as const) {
    test(`${kind}: next_run_date is the next time the schedule names`, async ({ agent }) => {
      // The target's time just before the cron: the lower bound of its next run where the cron gives no created_at.
      const clockThread = await newThread(agent);
      const before = await agent.get<Thread>(`/threads/${clockThread}`);
      precondition(before, "read the target's time from a new thread");
      const threadId = thread ? clockThread : null;
      const res = await agent.post<Cron>(threadId ? `/threads/${threadId}/runs/crons` : '/runs/crons', { assistant_id: 'agent', schedule: '30 4 * * *' });
      await deleteCrons(agent, res.json);
      expectStatus(res, '2xx');
      expect(typeof res.json.cron_id, res.describe('cron_id')).toBe('string');
      expect(res.json.schedule, res.describe('schedule as given')).toBe('30 4 * * *');
      const next = res.json.next_run_date;
      expect(isDateTime(next), res.describe('next_run_date is a date-time')).toBe(true);
      const at = new Date(next!);
      expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()], res.describe('04:30:00 UTC, as the schedule says')).toEqual([4, 30, 0]);
      const created = isDateTime(res.json.created_at) ? res.json.created_at : before.json.created_at;
      if (!isDateTime(created)) {
        skipForPrecondition(`precondition failed: neither the cron nor a thread made just before it says the target's time: ${before.describe()}`, [
          'THREAD-SHAPE',
        ]);
      }
      const ahead = at.getTime() - Date.parse(created);
      expect(ahead > 0 && ahead <= 24 * 3600 * 1000, res.describe(`the next 04:30 after creation (${created})`)).toBe(true);
    });
  }

  for (const [missing, body] of [
    ['schedule', { assistant_id: 'agent' }],
    ['assistant_id', { schedule: DAILY }],
  ] as const) {
    test(`a body without ${missing} is refused`, async ({ agent }) => {
      const threadId = await newThread(agent);
      expectJsonError(await agent.post(`/threads/${threadId}/runs/crons`, body));
      expectJsonError(await agent.post('/runs/crons', body));
    });
  }
});

test.describe('bad cron input answers 4xx with a JSON error and creates no cron', { tag: '@CRON-BAD-INPUT' }, () => {
  const cases: [string, string][] = [
    ['malformed JSON', `{"assistant_id": "agent", "schedule": "${DAILY}"`],
    ['no assistant_id', JSON.stringify({ schedule: DAILY })],
    ['no schedule', JSON.stringify({ assistant_id: 'agent' })],
    ['a schedule that is a number', JSON.stringify({ assistant_id: 'agent', schedule: 5 })],
    ['a schedule that is not a cron expression', JSON.stringify({ assistant_id: 'agent', schedule: 'every day at noon' })],
    ['a schedule with an out-of-range minute', JSON.stringify({ assistant_id: 'agent', schedule: '61 * * * *' })],
    ['an assistant_id that is a number', JSON.stringify({ assistant_id: 42, schedule: DAILY })],
    ['a webhook that is a number', JSON.stringify({ assistant_id: 'agent', schedule: DAILY, webhook: 42 })],
    ['a JSON array instead of an object', '[]'],
  ];
  for (const [name, body] of cases) {
    test(`${name}: thread cron`, async ({ agent }) => {
      const threadId = await newThread(agent);
      expectJsonError(await agent.post(`/threads/${threadId}/runs/crons`, undefined, { rawBody: body, headers: { 'content-type': 'application/json' } }));
      await expectNoOtherCron(agent, threadId, '', name);
    });
  }

  test('no schedule: stateless cron', async ({ agent, testKey }) => {
    // Marked with this test's key: other tests may create crons on a shared target meanwhile.
    expectJsonError(await agent.post('/runs/crons', { assistant_id: 'agent', metadata: { apc_test: testKey } }));
    await expectNoOtherCron(agent, null, testKey, 'a body without schedule');
  });
});

test('what the cron endpoints answer', { tag: '@CRON-BODIES' }, async ({ agent, observe }) => {
  const threadId = await newThread(agent);
  const created = await agent.post(`/threads/${threadId}/runs/crons`, { assistant_id: 'agent', schedule: DAILY });
  const keys = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort().join(', ') : JSON.stringify(value)?.slice(0, 80);
  const search = await agent.post('/runs/crons/search', { thread_id: threadId });
  const id = (created.json as Partial<Cron> | undefined)?.cron_id;
  const deleted = id ? await agent.delete(`/runs/crons/${id}`) : undefined;
  observe(
    'CRON-BODIES',
    `create thread cron: ${created.status}, keys ${keys(created.json)}; search: ${search.status}, ${Array.isArray(search.json) ? `array of ${search.json.length}` : keys(search.json)}; delete: ${deleted?.status ?? 'not tried'}`,
  );
  const stateless = await agent.post<Cron>('/runs/crons', { assistant_id: 'agent', schedule: DAILY });
  await deleteCrons(agent, stateless.json);
  observe('CRON-BODIES', `create cron: ${stateless.status}, keys ${keys(stateless.json)}`);
});
