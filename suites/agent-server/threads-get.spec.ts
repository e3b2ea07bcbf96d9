// §4.5, §7: reading a thread, and ids that name nothing; deleting a thread (not in the spec's tables).
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { newThread } from './runs-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

test('GET /threads/{thread_id} answers the thread as created', { tag: '@THREAD-GET' }, async ({ agent, testKey }) => {
  const created = await agent.post<Record<string, unknown>>('/threads', { metadata: { apc_test: testKey, k: 'v' } });
  precondition(created, 'create a thread');
  const read = await agent.get<Record<string, unknown>>(`/threads/${created.json.thread_id}`);
  expectStatus(read, '2xx');
  // Status may move between the two reads; it has rules of its own.
  for (const field of ['thread_id', 'created_at', 'metadata', 'values']) {
    expect(read.json[field], read.describe(`${field} as created`)).toEqual(created.json[field]);
  }
});

test('an unknown thread id answers 404 with a JSON error body', { tag: '@THREAD-GET-UNKNOWN-404' }, async ({ agent }) => {
  expectJsonError(await agent.get(`/threads/${UNKNOWN}`), 404);
});

test('a thread_id that is not a UUID answers 4xx with a JSON error body', { tag: '@THREAD-ID-MALFORMED' }, async ({ agent }) => {
  expectJsonError(await agent.get('/threads/not-a-uuid'));
});

// The spec shows no delete (§4.5); the service has one, and the run's cleanup uses it (harness/leftovers.ts).
test('DELETE /threads/{thread_id} deletes the thread', { tag: '@THREAD-DELETE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  expectStatus(await agent.delete(`/threads/${thread}`), '2xx');
  const read = await agent.get(`/threads/${thread}`);
  expect(read.status >= 400 && read.status < 500, read.describe('the deleted thread is no longer found (4xx)')).toBe(true);
});
