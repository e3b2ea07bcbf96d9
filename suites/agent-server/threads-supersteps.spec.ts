// §2.8: supersteps prepopulate a new thread.
import { expect, test } from '../../harness/fixtures.ts';
import { expectArray, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient } from '../../harness/client.ts';
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

/** Whether a thread created with one superstep shows it: its values (§2.7, the current state values), or its state's. */
async function shows(agent: ApiClient, threadId: string, values: Record<string, unknown>, asNode: string): Promise<boolean> {
  const holds = (v: Record<string, unknown> | null | undefined) => Object.entries(values).every(([key, value]) => v?.[key] === value);
  const thread = await agent.get<Thread>(`/threads/${threadId}`);
  precondition(thread, 'read the thread');
  if (holds(thread.json.values)) return true;
  const state = await agent.get<State>(`/threads/${threadId}/state`);
  precondition(state, 'read the thread state');
  // LangGraph takes an __input__ update as input still to run (its values in no snapshot): a node due next shows it.
  const { values: now, next, metadata } = state.json;
  const writes: unknown = metadata?.writes;
  return holds(now) || (Array.isArray(next) && next.length > 0) || (typeof writes === 'object' && writes !== null && asNode in writes);
}

/** The first of `nodes` whose superstep, alone on a new thread, shows there. */
async function anotherShown(agent: ApiClient, nodes: string[]): Promise<string | undefined> {
  for (const node of nodes) {
    const res = await agent.post<Thread>('/threads', withSuperstep(node));
    if (res.status >= 200 && res.status < 300 && (await shows(agent, res.json.thread_id, { topic: node }, node))) return node;
  }
  return undefined;
}

const withSuperstep = (asNode: string) => ({
  metadata: { graph_id: 'agent' },
  supersteps: [{ updates: [{ values: { topic: asNode }, as_node: asNode }] }],
});

// A superstep whose as_node is refused, or taken and then shown nowhere, was not accepted. Its
// creation is the request judged; what shows it is the thread's values or its state's values, next
// node or writes, never a field another rule judges (a checkpoint id is THREAD-STATE-SHAPE's). A
// target on which no superstep shows at all, whatever its node, leaves the rule unjudged: that is
// THREAD-CREATE-SUPERSTEPS's finding.
test.describe('as_node accepts __input__, __start__ and an application node name', { tag: '@THREAD-SUPERSTEPS-AS-NODE' }, () => {
  const NODES = ['__input__', '__start__', 'prepare'];
  for (const asNode of NODES) {
    test(`as_node ${asNode}`, async ({ agent }) => {
      const res = await agent.post<Thread>('/threads', withSuperstep(asNode));
      expectStatus(res, '2xx');
      const taken = await shows(agent, res.json.thread_id, { topic: asNode }, asNode);
      if (!taken) {
        // Shown nowhere: a superstep of another node that shows says the target takes supersteps at all.
        const other = await anotherShown(agent, [...NODES.filter((n) => n !== asNode), 'respond']);
        if (!other)
          skipForPrecondition(`precondition failed: no superstep shows in its thread, whatever its as_node: ${res.describe()}`, ['THREAD-CREATE-SUPERSTEPS']);
        expect(taken, res.describe(`the superstep of ${asNode} shows in the thread's values or its state, as one of ${other} does`)).toBe(true);
      }
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
