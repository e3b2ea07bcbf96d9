// §2.8: supersteps prepopulate a new thread.
import { expect, test } from '../../harness/fixtures.ts';
import { expectArray, expectStatus } from '../../harness/checks/index.ts';
import type { Thread, ThreadState as State } from '../../specs/types/agent-server.ts';

// __start__ rather than __input__ first: LangGraph records an __input__ update as pending
// input, so its values appear in no snapshot (§2.8 only names the node).
const supersteps = [
  { updates: [{ values: { topic: 'first', count: 1 }, as_node: '__start__' }] },
  { updates: [{ values: { topic: 'second' }, as_node: 'prepare' }] },
  { updates: [{ values: { topic: 'third', count: 3 }, as_node: 'respond' }] },
];

test("supersteps prepopulate the thread: its state holds the last superstep's values", { tag: '@THREAD-CREATE-SUPERSTEPS' }, async ({ agent }) => {
  const res = await agent.post('/threads', { metadata: { graph_id: 'agent' }, supersteps });
  expectStatus(res, '2xx');
  const id = (res.json as { thread_id: string }).thread_id;
  // A thread's values are its current state values (§2.7); the state endpoint has rules of its own.
  const thread = await agent.get<Thread>(`/threads/${id}`);
  expectStatus(thread, '2xx');
  expect(thread.json.values, thread.describe('thread values after the supersteps')).toMatchObject({ topic: 'third', count: 3 });
});

test.describe('as_node accepts __input__, __start__ and an application node name', { tag: '@THREAD-SUPERSTEPS-AS-NODE' }, () => {
  for (const asNode of ['__input__', '__start__', 'prepare']) {
    test(`as_node ${asNode}`, async ({ agent }) => {
      const res = await agent.post('/threads', {
        metadata: { graph_id: 'agent' },
        supersteps: [{ updates: [{ values: { topic: asNode }, as_node: asNode }] }],
      });
      expectStatus(res, '2xx');
      const state = await agent.get<State>(`/threads/${(res.json as { thread_id: string }).thread_id}/state`);
      expectStatus(state, '2xx');
      // Either checkpoint id of §2.8 will do: a missing top-level field is THREAD-STATE-SHAPE's failure.
      expect(state.json.checkpoint_id ?? state.json.checkpoint?.checkpoint_id ?? null, state.describe('the superstep wrote a checkpoint')).not.toBeNull();
    });
  }
});

test('each superstep writes one checkpoint, so history holds one snapshot per superstep', { tag: '@THREAD-SUPERSTEPS-HISTORY' }, async ({ agent }) => {
  const res = await agent.post('/threads', { metadata: { graph_id: 'agent' }, supersteps });
  expectStatus(res, '2xx');
  const history = await agent.post<State[]>(`/threads/${(res.json as { thread_id: string }).thread_id}/history`, {});
  expect(expectArray(history, 'history').length, history.describe('one snapshot per superstep')).toBe(supersteps.length);
  expect(history.json.map((s) => s.values.topic).sort(), history.describe('a snapshot per superstep')).toEqual(['first', 'second', 'third']);
});
