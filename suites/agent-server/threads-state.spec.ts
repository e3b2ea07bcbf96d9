// §2.8, §4.5: state snapshots, state at a checkpoint, history.
import { expect, test } from '../../harness/fixtures.ts';
import { expectArray, expectJsonError, expectSchema, expectStatus, precondition, preconditionArray, rulesOfStep } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient } from '../../harness/client.ts';
import type { Thread, ThreadState as State } from '../../specs/types/agent-server.ts';
import { newThread } from './runs-steps.ts';

// A snapshot's checkpoint ids, from the top-level fields or the checkpoint objects (§2.8 has
// both): a target without the top-level ones fails THREAD-STATE-SHAPE, not every rule here.
const idOf = (s: State) => s.checkpoint_id ?? s.checkpoint?.checkpoint_id;
const parentIdOf = (s: State) => s.parent_checkpoint_id ?? s.parent_checkpoint?.checkpoint_id ?? null;

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** The rules whose failure explains a history that does not hold one snapshot per superstep. */
const SUPERSTEP_HISTORY = ['THREAD-HISTORY', 'THREAD-SUPERSTEPS-HISTORY'];

// The first superstep is written as __start__: LangGraph records an __input__ update as
// pending input (its values appear in no snapshot), and §2.8 does not say otherwise.
async function threadWithHistory(agent: ApiClient, steps = 3): Promise<string> {
  const supersteps = Array.from({ length: steps }, (_, i) => ({
    updates: [{ values: { topic: `step ${i}`, count: i }, as_node: i === 0 ? '__start__' : i % 2 === 1 ? 'prepare' : 'respond' }],
  }));
  const res = await agent.post<Thread>('/threads', { metadata: { graph_id: 'agent' }, supersteps });
  precondition(res, 'create a thread with supersteps');
  return res.json.thread_id;
}

// The supersteps only set the state up: whether they prepopulate the thread is THREAD-CREATE-SUPERSTEPS's to
// judge, through the thread's own values (§2.7: its current state values), which must show the last superstep
// before the state endpoint is held to it. Where they do not, the state is judged on a thread a run wrote,
// once the thread's values show the run's answer.
test('GET /threads/{thread_id}/state answers the current state snapshot', { tag: '@THREAD-STATE' }, async ({ agent }) => {
  const shows = async (id: string, values: Record<string, unknown>, answer?: string) => {
    const thread = await agent.get<Thread>(`/threads/${id}`);
    precondition(thread, 'read the thread');
    const held = Object.entries(values).every(([key, value]) => thread.json.values?.[key] === value);
    return { thread, shown: held && (answer === undefined || JSON.stringify(thread.json.values).includes(answer)) };
  };
  let id = await threadWithHistory(agent);
  let current: { values: Record<string, unknown>; answer?: string } = { values: { topic: 'step 2', count: 2 } };
  let written = await shows(id, current.values);
  if (!written.shown) {
    id = await newThread(agent);
    precondition(await agent.post(`/threads/${id}/runs/wait`, { assistant_id: 'agent', input: { topic: 'state' } }), 'run on the thread');
    current = { values: { topic: 'state' }, answer: 'echo: state' };
    written = await shows(id, current.values, current.answer);
  }
  if (!written.shown) {
    skipForPrecondition(`precondition failed: the thread's values show neither its last superstep nor its run: ${written.thread.describe()}`, [
      'THREAD-CREATE-SUPERSTEPS',
      'RUN-WRITES-THREAD-STATE',
    ]);
  }
  const res = await agent.get<State>(`/threads/${id}/state`);
  expectStatus(res, '2xx');
  expect(res.json.values, res.describe('the current values')).toMatchObject(current.values);
  if (current.answer) expect(JSON.stringify(res.json.values), res.describe("the current values hold the run's answer")).toContain(current.answer);
});

test('a state snapshot has every field of §2.8', { tag: '@THREAD-STATE-SHAPE' }, async ({ agent }) => {
  const id = await threadWithHistory(agent);
  const state = await agent.get<State>(`/threads/${id}/state`);
  expectSchema(state, 'agent-server', 'ThreadState');
  const history = await agent.post<State[]>(`/threads/${id}/history`, {});
  for (const snapshot of preconditionArray(history, 'read the history of 3 supersteps', 3, SUPERSTEP_HISTORY)) {
    expectSchema(history, 'agent-server', 'ThreadState', snapshot);
  }
  const at = await agent.get<State>(`/threads/${id}/state/${idOf(history.json.at(-1)!)}`);
  expectSchema(at, 'agent-server', 'ThreadState');
  expect(state.json.checkpoint?.checkpoint_id, state.describe('checkpoint.checkpoint_id equals checkpoint_id')).toBe(state.json.checkpoint_id);
});

test('GET /threads/{thread_id}/state/{checkpoint_id} answers the snapshot at that checkpoint', { tag: '@THREAD-STATE-CHECKPOINT' }, async ({ agent }) => {
  const id = await threadWithHistory(agent);
  const history = await agent.post<State[]>(`/threads/${id}/history`, {});
  // Each of the 3 checkpoints is read back: an empty history would leave none to check.
  preconditionArray(history, 'read the history of 3 supersteps', 3, SUPERSTEP_HISTORY);
  for (const snapshot of history.json) {
    const res = await agent.get<State>(`/threads/${id}/state/${idOf(snapshot)}`);
    expectStatus(res, '2xx');
    expect(idOf(res.json), res.describe('the requested checkpoint')).toBe(idOf(snapshot));
    expect(res.json.values, res.describe('the values at that checkpoint')).toEqual(snapshot.values);
  }
});

test('an unknown checkpoint id answers 404 with a JSON error body', { tag: '@THREAD-STATE-CHECKPOINT-UNKNOWN' }, async ({ agent }) => {
  const id = await threadWithHistory(agent, 1);
  expectJsonError(await agent.get(`/threads/${id}/state/${UNKNOWN}`), 404);
  // A checkpoint of another thread is no checkpoint of this one: a lookup by checkpoint id alone
  // would answer the other thread's state under this thread's path.
  const other = await threadWithHistory(agent, 1);
  const state = await agent.get<State>(`/threads/${other}/state`);
  precondition(state, "read the other thread's state");
  if (typeof idOf(state.json) !== 'string') {
    skipForPrecondition(`precondition failed: the other thread's state names no checkpoint: ${state.describe()}`, ['THREAD-STATE-SHAPE']);
  }
  expectJsonError(await agent.get(`/threads/${id}/state/${idOf(state.json)}`), 404);
});

// A thread's history holds its checkpoints, the current one included. It is judged on a thread
// written by supersteps and on one written by a run: a target that cannot write a thread one way
// still has its history judged on the other.
test('history answers an array of state snapshots, the current one included', { tag: '@THREAD-HISTORY' }, async ({ agent }) => {
  const prepopulated = await agent.post<Thread>('/threads', {
    metadata: { graph_id: 'agent' },
    supersteps: [
      { updates: [{ values: { topic: 'step 0', count: 0 }, as_node: '__start__' }] },
      { updates: [{ values: { topic: 'step 1', count: 1 }, as_node: 'prepare' }] },
    ],
  });
  const plain = await agent.post<Thread>('/threads', { metadata: { graph_id: 'agent' } });
  const ran =
    plain.status >= 200 && plain.status < 300
      ? await agent.post(`/threads/${plain.json.thread_id}/runs/wait`, { assistant_id: 'agent', input: { topic: 'history' } })
      : plain;
  const written: [string, string][] = [];
  if (prepopulated.status >= 200 && prepopulated.status < 300) written.push(['supersteps', prepopulated.json.thread_id]);
  if (ran !== plain && ran.status >= 200 && ran.status < 300) written.push(['a run', plain.json.thread_id]);
  if (written.length === 0) {
    skipForPrecondition(`precondition failed: neither supersteps nor a run wrote a thread: ${prepopulated.describe()} / ${ran.describe()}`, [
      ...rulesOfStep(prepopulated),
      ...rulesOfStep(ran),
    ]);
  }
  // The current snapshot is found in the history by its checkpoint id; where the state names none
  // (THREAD-STATE-SHAPE's finding), by the values it holds. A state that names none and holds nothing
  // shows nothing written: that thread is not judged.
  let judged = 0;
  for (const [how, id] of written) {
    const res = await agent.post<State[]>(`/threads/${id}/history`, {});
    for (const snapshot of expectArray(res, `history of a thread written by ${how}`)) {
      expect(typeof snapshot.values, res.describe('each item is a snapshot with values')).toBe('object');
    }
    const current = await agent.get<State>(`/threads/${id}/state`);
    precondition(current, 'read the current state');
    const checkpoint = idOf(current.json);
    if (typeof checkpoint === 'string') {
      expect(res.json.map(idOf), res.describe(`the history of a thread written by ${how} holds its current checkpoint`)).toContain(checkpoint);
    } else if (Object.keys(current.json.values ?? {}).length > 0) {
      expect(
        res.json.map((s) => s.values),
        res.describe(`the history of a thread written by ${how} holds its current snapshot, the state's values (${current.describe()})`),
      ).toContainEqual(current.json.values);
    } else continue;
    judged += 1;
  }
  if (judged === 0) {
    skipForPrecondition(`precondition failed: no thread's state names a checkpoint or holds what wrote it: ${written.map(([how]) => how).join(', ')}`, [
      'THREAD-STATE-SHAPE',
      'THREAD-CREATE-SUPERSTEPS',
      'RUN-WRITES-THREAD-STATE',
    ]);
  }
});

test('history is most recent first', { tag: '@THREAD-HISTORY-ORDER' }, async ({ agent }) => {
  const id = await threadWithHistory(agent, 4);
  const res = await agent.post<State[]>(`/threads/${id}/history`, {});
  // The order is judged on the answer as it is; a history of another length is THREAD-SUPERSTEPS-HISTORY's to judge.
  if (expectArray(res, 'history').length !== 4) {
    skipForPrecondition(
      `precondition failed: the history of a thread with 4 supersteps has ${res.json.length} snapshots: ${res.describe()}`,
      SUPERSTEP_HISTORY,
    );
  }
  expect(
    res.json.map((s) => s.values.count),
    res.describe('newest superstep first'),
  ).toEqual([3, 2, 1, 0]);
  const current = await agent.get<State>(`/threads/${id}/state`);
  precondition(current, 'read the current state');
  expect(idOf(res.json[0]), res.describe('the first item is the current checkpoint')).toBe(idOf(current.json));
  for (let i = 0; i + 1 < res.json.length; i++) {
    expect(parentIdOf(res.json[i]), res.describe(`item ${i} is the child of item ${i + 1}`)).toBe(idOf(res.json[i + 1]));
  }
});

test('limit caps the number of snapshots', { tag: '@THREAD-HISTORY-LIMIT' }, async ({ agent }) => {
  const id = await threadWithHistory(agent, 4);
  // Without limit (the reference's default, 10, exceeds these 4): how many there are to cap.
  preconditionArray(await agent.post<State[]>(`/threads/${id}/history`, {}), 'history of a thread with 4 supersteps', 4, SUPERSTEP_HISTORY);
  for (const limit of [1, 2, 4, 6]) {
    const res = await agent.post<State[]>(`/threads/${id}/history`, { limit });
    expect(expectArray(res, `history with limit ${limit}`).length, res.describe(`limit ${limit} of 4 checkpoints`)).toBe(Math.min(limit, 4));
  }
});

test('state and history of an unknown thread answer 404 with a JSON error body', { tag: '@THREAD-UNKNOWN-404' }, async ({ agent }) => {
  expectJsonError(await agent.get(`/threads/${UNKNOWN}/state`), 404);
  expectJsonError(await agent.post(`/threads/${UNKNOWN}/history`, {}), 404);
});
