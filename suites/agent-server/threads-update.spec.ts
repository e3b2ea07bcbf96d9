// Updating and counting threads: paths the spec does not show (§4.5 has neither), which the service
// serves and the official SDK calls (threads.update, threads.count). A target that does not serve
// one declares it in not_shown_operations, and its test is skipped.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import type { Thread } from '../../specs/types/agent-server.ts';
import { newThread } from './runs-steps.ts';

test('PATCH /threads/{thread_id} merges the metadata given into the thread', { tag: '@THREAD-UPDATE' }, async ({ agent, testKey }) => {
  const thread = await newThread(agent, { apc_test: testKey, kept: 'as created', changed: 'before' });
  const res = await agent.patch<Thread>(`/threads/${thread}`, { metadata: { changed: 'after', added: { nested: 1 } } });
  expectStatus(res, '2xx');
  const merged = { apc_test: testKey, kept: 'as created', changed: 'after', added: { nested: 1 } };
  expect(res.json.metadata, res.describe('the answer holds the metadata merged')).toMatchObject(merged);
  const read = await agent.get<Thread>(`/threads/${thread}`);
  precondition(read, 'read the thread');
  expect(read.json.metadata, read.describe('the thread keeps the metadata merged')).toMatchObject(merged);
});

// Twelve threads match, past the ten a search answers by default; one beside them does not.
test('POST /threads/count answers how many threads match the metadata, as a bare integer', { tag: '@THREAD-COUNT' }, async ({ agent, testKey }) => {
  for (let i = 0; i < 12; i++) await newThread(agent, { apc_test: testKey, color: i < 4 ? 'blue' : 'red' });
  await newThread(agent, { apc_test: `${testKey}-apart`, color: 'red' });
  const all = await agent.post<number>('/threads/count', { metadata: { apc_test: testKey } });
  expectStatus(all, 200);
  expect(all.json, all.describe('every thread of the test, as a bare integer')).toBe(12);
  const red = await agent.post<number>('/threads/count', { metadata: { apc_test: testKey, color: 'red' } });
  expectStatus(red, 200);
  expect(red.json, red.describe('the threads that match every key')).toBe(8);
});
