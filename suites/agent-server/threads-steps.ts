// Steps the thread suites share: finding what a test made by its test key (the apc_test metadata
// every test's threads carry), and showing that a refused request made no thread there.
import { expect } from '@playwright/test';
import { precondition, preconditionArray } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient } from '../../harness/client.ts';
import type { Thread } from '../../specs/types/agent-server.ts';

/**
 * The rules whose failure explains a search of the test's threads (a setup step: it carries no
 * field under test) that does not answer the threads made in it.
 */
export const TEST_KEY_SEARCH = ['THREAD-SEARCH-ARRAY', 'THREAD-SEARCH-METADATA', 'THREAD-SEARCH-LIMIT', 'THREAD-CREATE-METADATA'];

/**
 * Checks that the test has no thread but one made now to compare: the search must find that
 * one, so a search that finds nothing cannot pass for "none was made".
 */
export async function expectNoOtherThread(agent: ApiClient, testKey: string, what: string): Promise<void> {
  const control = await agent.post<Thread>('/threads', { metadata: { apc_test: testKey } });
  precondition(control, 'create a thread of the test');
  const res = await agent.post<Thread[]>('/threads/search', { metadata: { apc_test: testKey } });
  const found = preconditionArray(res, "search the test's threads", undefined, TEST_KEY_SEARCH).map((t) => t.thread_id);
  if (!found.includes(control.json.thread_id)) {
    skipForPrecondition(`precondition failed: the search does not find the thread just made with the test key: ${res.describe()}`, TEST_KEY_SEARCH);
  }
  expect(found, res.describe(`no thread was created by ${what}`)).toEqual([control.json.thread_id]);
}

/**
 * The id of a new copy of the thread, as a step. The copy's answer has no format the spec shows (§4.5:
 * "a new, independent thread"), so what a rule judges of the copy is read (GET); a copy that names no
 * thread is THREAD-COPY-NEW's failure.
 */
export async function copyOf(agent: ApiClient, threadId: string): Promise<string> {
  const copy = await agent.post<{ thread_id?: unknown }>(`/threads/${threadId}/copy`);
  precondition(copy, 'copy the thread');
  const id = copy.json?.thread_id;
  if (typeof id !== 'string') skipForPrecondition(`precondition failed: the copy names no new thread: ${copy.describe()}`, ['THREAD-COPY-NEW']);
  return id;
}
