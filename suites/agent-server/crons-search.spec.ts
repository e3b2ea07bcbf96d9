// POST /runs/crons/search (the Agent Server OpenAPI, docs.langchain.com/langsmith/agent-server-openapi.json): an array of crons, filtered and paged.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus } from '../../harness/checks/index.ts';
import type { ApiClient } from '../../harness/client.ts';
import { newThread } from './runs-steps.ts';
import { createCron, deleteCrons, type Cron } from './webhooks-steps.ts';

const DAILY = '0 0 * * *';
const OTHER_ASSISTANT = '00000000-0000-4000-8000-000000000000';

async function search(agent: ApiClient, body: Record<string, unknown>): Promise<string[]> {
  const res = await agent.post<Cron[]>('/runs/crons/search', body);
  expectStatus(res, 200);
  expect(Array.isArray(res.json), res.describe('an array of crons')).toBe(true);
  return res.json.map((c) => c.cron_id);
}

test('search honours thread_id, assistant_id, limit and offset', { tag: '@CRON-SEARCH' }, async ({ agent }) => {
  const threadId = await newThread(agent);
  const otherThread = await newThread(agent);
  const first = await createCron(agent, threadId, { schedule: DAILY });
  const second = await createCron(agent, threadId, { schedule: '0 12 * * *' });
  const elsewhere = await createCron(agent, otherThread, { schedule: DAILY });
  try {
    const mine = [first.cron_id, second.cron_id].sort();
    expect((await search(agent, { thread_id: threadId })).sort(), "thread_id keeps the thread's crons").toEqual(mine);
    expect((await search(agent, { thread_id: threadId, assistant_id: first.assistant_id })).sort(), "assistant_id keeps the assistant's crons").toEqual(mine);
    expect(await search(agent, { thread_id: threadId, assistant_id: OTHER_ASSISTANT }), 'another assistant has none of them').toEqual([]);
    const page1 = await search(agent, { thread_id: threadId, limit: 1 });
    const page2 = await search(agent, { thread_id: threadId, limit: 1, offset: 1 });
    expect(page1, 'limit 1').toHaveLength(1);
    expect(page2, 'limit 1, offset 1').toHaveLength(1);
    expect([...page1, ...page2].sort(), 'the two pages hold both crons').toEqual(mine);
    expect(await search(agent, { thread_id: threadId, offset: 2 }), 'offset past the end').toEqual([]);
  } finally {
    await deleteCrons(agent, first, second, elsewhere);
  }
});
