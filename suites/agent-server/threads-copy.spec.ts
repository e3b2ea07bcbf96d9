// §3, §4.5: a copy is a new thread holding the original's state, independent of it.
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { Thread, ThreadState as State } from '../../specs/types/agent-server.ts';
import { readState } from './runs-steps.ts';

/** The rules whose failure explains an original that does not read as its supersteps made it. */
const ORIGINAL_STATE = ['THREAD-STATE', 'THREAD-CREATE-SUPERSTEPS'];

const prepopulated = (testKey: string) => ({
  metadata: { graph_id: 'agent', apc_test: testKey },
  supersteps: [{ updates: [{ values: { topic: 'original', count: 1 }, as_node: 'prepare' }] }],
});

test('copy answers a new thread with a different thread_id', { tag: '@THREAD-COPY-NEW' }, async ({ agent, testKey }) => {
  const original = await agent.post<Thread>('/threads', prepopulated(testKey));
  precondition(original, 'create a thread');
  const copy = await agent.post<Thread>(`/threads/${original.json.thread_id}/copy`);
  expectStatus(copy, '2xx');
  expect(typeof copy.json.thread_id, copy.describe('the copy has a thread_id')).toBe('string');
  expect(copy.json.thread_id, copy.describe('the copy is a new thread')).not.toBe(original.json.thread_id);
  const read = await agent.get<Thread>(`/threads/${copy.json.thread_id}`);
  expectStatus(read, '2xx');
});

// The original is written by supersteps, or, where its state does not show them (THREAD-CREATE-SUPERSTEPS'
// finding), by a run: a target that cannot write a thread one way still has its copies judged.
test("the copy holds the original's state at copy time", { tag: '@THREAD-COPY-STATE' }, async ({ agent, testKey }) => {
  const prepopulatedOriginal = await agent.post<Thread>('/threads', prepopulated(testKey));
  precondition(prepopulatedOriginal, 'create a thread');
  let original = prepopulatedOriginal.json.thread_id;
  let originalState = await agent.get<State>(`/threads/${original}/state`);
  precondition(originalState, "read the original's state", ORIGINAL_STATE);
  if (originalState.json.values?.topic !== 'original') {
    const ran = await agent.post<Thread>('/threads', { metadata: { graph_id: 'agent', apc_test: testKey } });
    precondition(ran, 'create a thread');
    original = ran.json.thread_id;
    precondition(await agent.post(`/threads/${original}/runs/wait`, { assistant_id: 'agent', input: { topic: 'original' } }), 'run on the original');
    originalState = await agent.get<State>(`/threads/${original}/state`);
    precondition(originalState, "read the original's state", ORIGINAL_STATE);
  }
  // An original that reads empty would make an empty copy look right.
  if (originalState.json.values?.topic !== 'original') {
    skipForPrecondition(`precondition failed: the original's state holds neither its supersteps nor its run: ${originalState.describe()}`, [
      ...ORIGINAL_STATE,
      'RUN-WRITES-THREAD-STATE',
    ]);
  }
  // The copy is the request the rule is about: a refusal fails it.
  const copy = await agent.post<Thread>(`/threads/${original}/copy`);
  expectStatus(copy, '2xx');
  const copyState = await agent.get<State>(`/threads/${copy.json.thread_id}/state`);
  expectStatus(copyState, '2xx');
  expect(copyState.json.values, copyState.describe("the copy's state values")).toEqual(originalState.json.values);
});

test('after the copy, a change to either thread does not change the other', { tag: '@THREAD-COPY-INDEPENDENT' }, async ({ agent, testKey }) => {
  const original = await agent.post<Thread>('/threads', prepopulated(testKey));
  precondition(original, 'create a thread');
  const copy = await agent.post<Thread>(`/threads/${original.json.thread_id}/copy`);
  expectStatus(copy, '2xx');
  const before = await readState(agent, original.json.thread_id);

  // A run on the copy is the documented way to change its state (§4.5). The original is judged
  // first: a run that went to it instead is the finding, not a run that changed nothing.
  const run = await agent.post(`/threads/${copy.json.thread_id}/runs/wait`, { assistant_id: 'agent', input: { topic: 'changed in the copy' } });
  precondition(run, 'run on the copy');
  const after = await readState(agent, original.json.thread_id);
  expect(after.values, "the original's state is unchanged by a run on the copy").toEqual(before.values);
  const changed = await readState(agent, copy.json.thread_id);
  if (changed.values.topic !== 'changed in the copy') {
    skipForPrecondition(`precondition failed: a run did not change the copy's state (topic ${JSON.stringify(changed.values.topic)})`, [
      'RUN-WRITES-THREAD-STATE',
      'RUN-WAIT',
    ]);
  }

  const runOnOriginal = await agent.post(`/threads/${original.json.thread_id}/runs/wait`, {
    assistant_id: 'agent',
    input: { topic: 'changed in the original' },
  });
  precondition(runOnOriginal, 'run on the original');
  const copyAfter = await readState(agent, copy.json.thread_id);
  expect(copyAfter.values, 'the copy is unchanged by a run on the original').toEqual(changed.values);
});

test('copying an unknown thread answers 404 with a JSON error body and creates nothing', { tag: '@THREAD-COPY-UNKNOWN' }, async ({ agent }) => {
  expectJsonError(await agent.post('/threads/00000000-0000-4000-8000-000000000000/copy'), 404);
});

test('what copy answers', { tag: '@THREAD-COPY-FORMAT' }, async ({ agent, observe }) => {
  const original = await agent.post<Thread>('/threads', {});
  precondition(original, 'create a thread');
  const copy = await agent.post(`/threads/${original.json.thread_id}/copy`);
  const keys = copy.json && typeof copy.json === 'object' ? Object.keys(copy.json).sort().join(', ') : '(not a JSON object)';
  observe('THREAD-COPY-FORMAT', `status ${copy.status}, content-type ${copy.headers['content-type'] ?? '(none)'}, keys: ${keys}`);
});
