// The official client, @langchain/langgraph-sdk, unchanged against the simulator: every
// in-scope operation (spec §4.5) works and answers what the spec says. Time is virtual:
// a run asked to wait (delay_ms) stays in progress until the test moves the clock.
import { Client, type StreamMode } from '@langchain/langgraph-sdk';
import { expect, test } from '@playwright/test';
import { Simulator } from '../../simulator/simulator.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

let sim: Simulator;
let client: Client;

test.beforeAll(async () => {
  sim = await Simulator.start({ quiet: true, strict: true });
  client = new Client({ apiUrl: sim.urls['agent-server'], apiKey: null });
});
test.afterAll(async () => sim.close());
test.beforeEach(() => sim.reset());

/** The HTTP status the SDK failed with (it throws HTTPError with .status), or 'no error'. */
async function httpStatus(call: Promise<unknown>): Promise<number | string> {
  try {
    await call;
    return 'no error';
  } catch (error) {
    return (error as { status?: number }).status ?? String(error);
  }
}

/** How the SDK failed: the HTTPError's status and message (status undefined when the call succeeded). */
async function refusal(call: Promise<unknown>): Promise<{ status?: number; message: string }> {
  try {
    await call;
    return { message: 'no error' };
  } catch (error) {
    const { status, message } = error as { status?: number; message?: unknown };
    return { status, message: String(message) };
  }
}

async function collect(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<{ event: string; data: unknown }[]> {
  const events: { event: string; data: unknown }[] = [];
  for await (const { event, data } of stream) events.push({ event, data });
  return events;
}

const topic = (values: unknown) => (values as { topic?: unknown }).topic;
const texts = (values: unknown) => ((values as { messages?: { content: unknown }[] }).messages ?? []).map((m) => m.content);

/** A thread of the `agent` graph holding two supersteps: topic 'first', then 'second' written as prepare. */
async function prepopulated() {
  return client.threads.create({
    metadata: { owner: 'sdk' },
    graphId: 'agent',
    supersteps: [
      { updates: [{ values: { topic: 'first', count: 1 }, asNode: '__start__' }] },
      { updates: [{ values: { topic: 'second' }, asNode: 'prepare' }] },
    ],
  });
}

test.describe('threads', () => {
  test('create with metadata and graphId answers an idle thread holding that metadata and empty values (§2.7, §3)', async () => {
    const thread = await client.threads.create({ metadata: { owner: 'sdk', nested: { n: 1 } }, graphId: 'agent' });
    expect(thread.thread_id).toMatch(UUID);
    expect(thread.created_at).toMatch(DATE_TIME);
    expect(thread.updated_at).toMatch(DATE_TIME);
    expect(thread.status).toBe('idle');
    expect(thread.metadata).toEqual({ owner: 'sdk', nested: { n: 1 }, graph_id: 'agent' });
    expect(thread.values).toEqual({});
    expect(typeof thread.config).toBe('object');
  });

  test("create with supersteps prepopulates the thread: its values are the last superstep's (§2.8)", async () => {
    const thread = await prepopulated();
    expect(thread.status).toBe('idle');
    expect(thread.values).toEqual({ topic: 'second', count: 1 });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toEqual({ topic: 'second', count: 1 });
    expect(state.next).toEqual(['respond']);
    expect(state.checkpoint.checkpoint_id).toMatch(UUID);
    expect(state.checkpoint.thread_id).toBe(thread.thread_id);
    expect(Number.isInteger(state.metadata?.step)).toBe(true);
  });

  test('get answers the thread as created; an unknown id fails with 404 (§4.5, §7)', async () => {
    const created = await prepopulated();
    const read = await client.threads.get(created.thread_id);
    expect(read).toEqual(created);
    expect(await httpStatus(client.threads.get(UNKNOWN))).toBe(404);
  });

  test('getHistory answers one snapshot per superstep, most recent first, each the parent of the one before; limit caps it (§2.8, §4.5)', async () => {
    const thread = await prepopulated();
    const state = await client.threads.getState(thread.thread_id);
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((s) => topic(s.values))).toEqual(['second', 'first']);
    expect(history[0].checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    expect(history[0].parent_checkpoint?.checkpoint_id).toBe(history[1].checkpoint.checkpoint_id);
    expect(await client.threads.getHistory(thread.thread_id, { limit: 1 })).toEqual([history[0]]);
  });

  test('getState at a checkpoint answers the state there; an unknown checkpoint fails with 404 (§4.5)', async () => {
    const thread = await prepopulated();
    const [, first] = await client.threads.getHistory(thread.thread_id);
    const at = await client.threads.getState(thread.thread_id, first.checkpoint.checkpoint_id!);
    expect(at.checkpoint.checkpoint_id).toBe(first.checkpoint.checkpoint_id);
    expect(at.values).toEqual({ topic: 'first', count: 1 });
    expect(at.next).toEqual(['prepare']);
    expect(await httpStatus(client.threads.getState(thread.thread_id, UNKNOWN))).toBe(404);
  });

  test("copy answers a new idle thread holding the original's state, and the two stay independent (§3)", async () => {
    const original = await prepopulated();
    const copy = await client.threads.copy(original.thread_id);
    expect(copy.thread_id).toMatch(UUID);
    expect(copy.thread_id).not.toBe(original.thread_id);
    expect(copy.status).toBe('idle');
    expect((await client.threads.getState(copy.thread_id)).values).toEqual({ topic: 'second', count: 1 });

    await client.runs.wait(copy.thread_id, 'agent', { input: { topic: 'copy only' } });
    expect(topic((await client.threads.getState(copy.thread_id)).values)).toBe('copy only');
    expect((await client.threads.getState(original.thread_id)).values).toEqual({ topic: 'second', count: 1 });
    await client.runs.wait(original.thread_id, 'agent', { input: { topic: 'original only' } });
    expect(topic((await client.threads.getState(copy.thread_id)).values)).toBe('copy only');
    expect(await httpStatus(client.threads.copy(UNKNOWN))).toBe(404);
  });

  test('search filters by metadata and status, caps with limit, pages with offset and sorts (§4.5)', async () => {
    const red = await client.threads.create({ metadata: { color: 'red' }, graphId: 'agent' });
    const blue = await client.threads.create({ metadata: { color: 'blue' }, graphId: 'agent' });
    const redBig = await client.threads.create({ metadata: { color: 'red', size: 'big' }, graphId: 'agent' });
    const ids = (threads: { thread_id: string }[]) => threads.map((t) => t.thread_id);

    expect(ids(await client.threads.search({ metadata: { color: 'red' } })).sort()).toEqual([red.thread_id, redBig.thread_id].sort());
    expect(ids(await client.threads.search({ metadata: { color: 'red', size: 'big' } }))).toEqual([redBig.thread_id]);
    expect(await client.threads.search({ limit: 2 })).toHaveLength(2);

    const ascending = ids(await client.threads.search({ sortBy: 'thread_id', sortOrder: 'asc' }));
    expect(ascending).toEqual([red, blue, redBig].map((t) => t.thread_id).sort());
    expect(ids(await client.threads.search({ sortBy: 'thread_id', sortOrder: 'desc' }))).toEqual([...ascending].reverse());
    expect(ids(await client.threads.search({ sortBy: 'thread_id', sortOrder: 'asc', offset: 1, limit: 1 }))).toEqual([ascending[1]]);

    const busy = await client.runs.create(blue.thread_id, 'agent', { input: { delay_ms: 1000 } });
    expect(ids(await client.threads.search({ status: 'busy' }))).toEqual([blue.thread_id]);
    expect(ids(await client.threads.search({ status: 'idle' })).sort()).toEqual([red.thread_id, redBig.thread_id].sort());
    sim.advance(1000);
    await client.runs.join(blue.thread_id, busy.run_id);
  });
});

test.describe('runs', () => {
  test('create answers the run in progress; get follows it and join returns its values only once it has completed (§4.5)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    let announced: { run_id: string; thread_id?: string } | undefined;
    const run = await client.runs.create(thread.thread_id, 'agent', {
      input: { topic: 'slow', delay_ms: 1000 },
      metadata: { origin: 'sdk' },
      onRunCreated: (meta) => (announced = meta),
    });
    expect(run.run_id).toMatch(UUID);
    expect(run.thread_id).toBe(thread.thread_id);
    expect(run.assistant_id).toMatch(UUID);
    expect(run.created_at).toMatch(DATE_TIME);
    expect(run.metadata).toEqual({ origin: 'sdk' });
    expect(['pending', 'running']).toContain(run.status);
    expect(announced).toEqual({ run_id: run.run_id, thread_id: thread.thread_id });
    expect((await client.threads.get(thread.thread_id)).status).toBe('busy');
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('running');

    let joined = false;
    const joining = client.runs.join(thread.thread_id, run.run_id).finally(() => (joined = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(joined, 'join has not returned while the run is in progress').toBe(false);
    sim.advance(1000);
    const values = await joining;
    expect(texts(values)).toEqual(['prepared: slow', 'echo: slow']);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
    expect(await httpStatus(client.runs.get(thread.thread_id, UNKNOWN))).toBe(404);
  });

  test('list answers the thread runs, honouring status, limit and offset', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    await client.runs.wait(thread.thread_id, 'agent', { input: { topic: 'one' } });
    await client.runs.wait(thread.thread_id, 'agent', { input: { fail: true } }).catch(() => undefined);
    await client.runs.wait(thread.thread_id, 'agent', { input: { topic: 'three' } });
    const all = await client.runs.list(thread.thread_id);
    expect(all).toHaveLength(3);
    expect(all.map((r) => r.status).sort()).toEqual(['error', 'success', 'success']);
    expect((await client.runs.list(thread.thread_id, { status: 'error' })).map((r) => r.status)).toEqual(['error']);
    const first = await client.runs.list(thread.thread_id, { limit: 1 });
    const rest = await client.runs.list(thread.thread_id, { limit: 2, offset: 1 });
    expect([...first, ...rest].map((r) => r.run_id)).toEqual(all.map((r) => r.run_id));
  });

  test("wait answers the final state values; a failed run makes it throw the run's error (§4.5)", async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const values = await client.runs.wait(thread.thread_id, 'agent', { input: { messages: [{ role: 'human', content: 'hi' }] } });
    expect(values).toEqual((await client.threads.getState(thread.thread_id)).values);
    expect(texts(values)).toEqual(['hi', 'prepared: hi', 'echo: hi']);
    await expect(client.runs.wait(thread.thread_id, 'agent', { input: { fail: true } })).rejects.toThrow(/fail: true/);
    expect((await client.threads.get(thread.thread_id)).status).toBe('error');
  });

  test('wait without a thread runs statelessly and leaves no thread behind (§4.5)', async () => {
    const before = await client.threads.search({ limit: 100 });
    const values = await client.runs.wait(null, 'agent', { input: { topic: 'alone' } });
    expect(texts(values)).toEqual(['prepared: alone', 'echo: alone']);
    expect(await client.threads.search({ limit: 100 })).toEqual(before);
  });

  test('stream yields metadata {run_id, attempt} first, then values and updates of each step, and closes at the end (§4.5)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    let announced: string | undefined;
    const events = await collect(
      client.runs.stream(thread.thread_id, 'agent', {
        input: { topic: 'streamed' },
        streamMode: ['values', 'updates'] as StreamMode[],
        onRunCreated: (m) => (announced = m.run_id),
      }),
    );
    expect(events.map((e) => e.event)).toEqual(['metadata', 'values', 'updates', 'values', 'updates', 'values']);
    expect(events[0].data).toEqual({ run_id: announced, attempt: 1 });
    expect(events.filter((e) => e.event === 'updates').map((e) => Object.keys(e.data as object))).toEqual([['prepare'], ['respond']]);
    expect(events[2].data).toEqual({ prepare: { messages: [{ role: 'ai', content: 'prepared: streamed' }] } });
    expect(events.at(-1)!.data).toEqual((await client.threads.getState(thread.thread_id)).values);
    expect((await client.runs.get(thread.thread_id, announced!)).status).toBe('success');
  });

  test('stream with streamMode events yields each node starting and ending (§4.5)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const events = await collect(client.runs.stream(thread.thread_id, 'agent', { input: { topic: 'events' }, streamMode: 'events' }));
    expect(events[0].event).toBe('metadata');
    expect(new Set(events.slice(1).map((e) => e.event))).toEqual(new Set(['events']));
    const chain = events.slice(1).map((e) => e.data as { event: string; name: string });
    expect(chain.map((e) => `${e.event} ${e.name}`)).toEqual([
      'on_chain_start prepare',
      'on_chain_end prepare',
      'on_chain_start respond',
      'on_chain_end respond',
    ]);
  });

  test('stream of a failing run ends with an error event holding error and message', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const events = await collect(client.runs.stream(thread.thread_id, 'agent', { input: { fail: true } }));
    expect(events[0].event).toBe('metadata');
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toEqual({ error: expect.any(String), message: expect.stringContaining('fail: true') });
  });

  test('stream without a thread streams a stateless run (§4.5)', async () => {
    const events = await collect(client.runs.stream(null, 'agent', { input: { topic: 'stateless' }, streamMode: 'values' }));
    expect(events.map((e) => e.event)).toEqual(['metadata', 'values', 'values', 'values']);
    expect(texts(events.at(-1)!.data)).toEqual(['prepared: stateless', 'echo: stateless']);
  });

  test('multitaskStrategy reaches the server: reject fails with 409 and the first run continues (§3)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const first = await client.runs.create(thread.thread_id, 'agent', { input: { topic: 'first', delay_ms: 1000 } });
    expect(await httpStatus(client.runs.create(thread.thread_id, 'agent', { input: { topic: 'refused' }, multitaskStrategy: 'reject' }))).toBe(409);
    sim.advance(1000);
    await client.runs.join(thread.thread_id, first.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('success');
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([first.run_id]);
  });

  test('multitaskStrategy rollback deletes the run in progress: it is not found and the state holds only the new run (§3)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const first = await client.runs.create(thread.thread_id, 'agent', { input: { topic: 'first', delay_ms: 1000 } });
    const second = await client.runs.create(thread.thread_id, 'agent', { input: { topic: 'second' }, multitaskStrategy: 'rollback' });
    expect(second.multitask_strategy).toBe('rollback');
    await client.runs.join(thread.thread_id, second.run_id);
    expect(await httpStatus(client.runs.get(thread.thread_id, first.run_id))).toBe(404);
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([second.run_id]);
    expect(texts((await client.threads.getState(thread.thread_id)).values)).toEqual(['prepared: second', 'echo: second']);
  });

  test('multitaskStrategy interrupt keeps the first run, interrupted, and runs the new one (§3)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const first = await client.runs.create(thread.thread_id, 'agent', { input: { topic: 'first', delay_ms: 1000 } });
    const second = await client.runs.create(thread.thread_id, 'agent', { input: { topic: 'second' }, multitaskStrategy: 'interrupt' });
    await client.runs.join(thread.thread_id, second.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');
    expect((await client.runs.get(thread.thread_id, second.run_id)).status).toBe('success');
  });
});

test.describe('assistants', () => {
  test("search answers the graph's default assistant first, then its configured ones, each identified by a UUID; limit and offset page them (§2.10, §4.5)", async () => {
    const assistants = await client.assistants.search();
    expect(assistants.map((a) => a.graph_id)).toEqual(['agent', 'agent', 'agent']);
    expect(assistants[0].metadata).toEqual({ created_by: 'system' });
    for (const assistant of assistants) {
      expect(assistant.assistant_id).toMatch(UUID);
      expect(assistant.config === null || typeof assistant.config === 'object').toBe(true);
    }
    expect(await client.assistants.search({ limit: 1 })).toEqual(assistants.slice(0, 1));
    expect(await client.assistants.search({ offset: 1 })).toEqual(assistants.slice(1));
    expect(await client.assistants.search({ graphId: 'agent' })).toEqual(assistants);
  });

  test('get answers the assistant by its UUID and by its graph id; an unknown one fails with 404 (§2.10)', async () => {
    const [assistant, configured] = await client.assistants.search({ graphId: 'agent' });
    expect(await client.assistants.get(assistant.assistant_id)).toEqual(assistant);
    expect(await client.assistants.get(configured.assistant_id)).toEqual(configured);
    expect(await client.assistants.get('agent'), "a graph id names the graph's default assistant").toEqual(assistant);
    expect(await httpStatus(client.assistants.get(UNKNOWN))).toBe(404);
  });
});

test.describe('crons', () => {
  const FIVE_MINUTES = 5 * 60_000;

  test('createForThread answers a cron of the thread, which starts a run there at each scheduled time until deleted (§4.5)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const cron = await client.crons.createForThread(thread.thread_id, 'agent', { schedule: '*/5 * * * *', input: { topic: 'tick' } });
    expect(cron.cron_id).toMatch(UUID);
    expect(cron.thread_id).toBe(thread.thread_id);
    expect(cron.schedule).toBe('*/5 * * * *');
    expect(cron.assistant_id).toMatch(UUID);
    expect(await client.runs.list(thread.thread_id)).toEqual([]);

    sim.advance(FIVE_MINUTES);
    const [run] = await client.runs.list(thread.thread_id);
    await client.runs.join(thread.thread_id, run.run_id);
    expect(texts((await client.threads.getState(thread.thread_id)).values)).toEqual(['prepared: tick', 'echo: tick']);
    sim.advance(FIVE_MINUTES);
    expect(await client.runs.list(thread.thread_id)).toHaveLength(2);

    await client.crons.delete(cron.cron_id);
    sim.advance(FIVE_MINUTES);
    expect(await client.runs.list(thread.thread_id)).toHaveLength(2);
  });

  test('create answers a cron of the assistant, not bound to a thread, and accepts webhook (§4.5)', async () => {
    const cron = await client.crons.create('agent', { schedule: '0 * * * *', input: { topic: 'hourly' }, webhook: 'http://127.0.0.1:9/hook?token=t' });
    expect(cron.cron_id).toMatch(UUID);
    expect(cron.thread_id ?? null).toBeNull();
    expect(cron.schedule).toBe('0 * * * *');
    const [assistant] = await client.assistants.search({ graphId: 'agent' });
    expect(cron.assistant_id).toBe(assistant.assistant_id);
  });

  test('search finds crons by assistant and by thread, honouring limit and offset; delete removes one (§4.5)', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    const own = await client.crons.createForThread(thread.thread_id, 'agent', { schedule: '*/5 * * * *' });
    const global = await client.crons.create('agent', { schedule: '0 * * * *' });
    const ids = (crons: { cron_id: string }[]) => crons.map((c) => c.cron_id);

    expect(ids(await client.crons.search({ threadId: thread.thread_id }))).toEqual([own.cron_id]);
    expect(ids(await client.crons.search({ assistantId: own.assistant_id })).sort()).toEqual([own.cron_id, global.cron_id].sort());
    const all = ids(await client.crons.search());
    expect(all.sort()).toEqual([own.cron_id, global.cron_id].sort());
    expect(await client.crons.search({ limit: 1 })).toHaveLength(1);
    const [firstPage] = ids(await client.crons.search({ limit: 1 }));
    const [secondPage] = ids(await client.crons.search({ limit: 1, offset: 1 }));
    expect([firstPage, secondPage].sort()).toEqual(all.sort());

    await client.crons.delete(global.cron_id);
    expect(ids(await client.crons.search())).toEqual([own.cron_id]);
    expect(await httpStatus(client.crons.delete(global.cron_id))).toBe(404);
  });
});

// What the client calls that the spec does not show (§4.5 has no update, count, delete, cancel or assistant
// create): served as the service serves them, on a simulator that is not strict.
test.describe('beyond the spec, as the service serves it', () => {
  let open: Simulator;
  let sdk: Client;
  test.beforeAll(async () => {
    open = await Simulator.start({ quiet: true });
    sdk = new Client({ apiUrl: open.urls['agent-server'], apiKey: null });
  });
  test.afterAll(async () => open.close());
  test.beforeEach(() => open.reset());

  test("threads.update merges the metadata given into the thread's and answers the thread; a ttl, which the simulator cannot honour, fails with 422 naming it", async () => {
    const thread = await sdk.threads.create({ metadata: { owner: 'sdk', color: 'red' }, graphId: 'agent' });
    const updated = await sdk.threads.update(thread.thread_id, { metadata: { color: 'blue', size: 'big' } });
    expect(updated.thread_id).toBe(thread.thread_id);
    expect(updated.metadata).toEqual({ owner: 'sdk', color: 'blue', size: 'big', graph_id: 'agent' });
    expect(await sdk.threads.get(thread.thread_id)).toEqual(updated);
    expect(await httpStatus(sdk.threads.update(UNKNOWN, { metadata: { a: 1 } }))).toBe(404);
    const refused = await refusal(sdk.threads.update(thread.thread_id, { metadata: { a: 1 }, ttl: 60 }));
    expect(refused.status).toBe(422);
    expect(refused.message).toContain('ttl');
    expect((await sdk.threads.get(thread.thread_id)).metadata, 'a refused update changes nothing').toEqual(updated.metadata);
  });

  test('threads.count answers how many threads match metadata, values and status, with no limit', async () => {
    for (let i = 0; i < 12; i++) await sdk.threads.create({ metadata: { color: i % 3 === 0 ? 'blue' : 'red' }, graphId: 'agent' });
    const busy = await sdk.threads.create({ metadata: { color: 'green' }, graphId: 'agent' });
    const run = await sdk.runs.create(busy.thread_id, 'agent', { input: { topic: 'counted', delay_ms: 1000 } });
    expect(await sdk.threads.count()).toBe(13);
    expect(await sdk.threads.count({ metadata: { color: 'red' } })).toBe(8);
    expect(await sdk.threads.count({ status: 'busy' })).toBe(1);
    expect(await sdk.threads.count({ metadata: { color: 'blue' }, status: 'busy' })).toBe(0);
    open.advance(1000);
    await sdk.runs.join(busy.thread_id, run.run_id);
    expect(await sdk.threads.count({ values: { topic: 'counted' } })).toBe(1);
  });

  test('threads.delete deletes the thread with its runs: reading either then fails with 404, as does a second delete', async () => {
    const thread = await sdk.threads.create({ graphId: 'agent' });
    const run = await sdk.runs.create(thread.thread_id, 'agent', { input: { topic: 'doomed', delay_ms: 1000 } });
    await sdk.threads.delete(thread.thread_id);
    expect(await httpStatus(sdk.threads.get(thread.thread_id))).toBe(404);
    expect(await httpStatus(sdk.runs.get(thread.thread_id, run.run_id))).toBe(404);
    expect(await httpStatus(sdk.threads.delete(thread.thread_id))).toBe(404);
  });

  test('runs.cancel interrupts a run in progress: it is kept, interrupted, with what it wrote, and the next run queued on the thread starts', async () => {
    const thread = await sdk.threads.create({ graphId: 'agent' });
    const first = await sdk.runs.create(thread.thread_id, 'agent', { input: { topic: 'cancelled', delay_ms: 1000 } });
    const queued = await sdk.runs.create(thread.thread_id, 'agent', { input: { topic: 'next' }, multitaskStrategy: 'enqueue' });
    expect((await sdk.runs.get(thread.thread_id, queued.run_id)).status).toBe('pending');
    await sdk.runs.cancel(thread.thread_id, first.run_id);
    expect((await sdk.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');
    expect(topic(await sdk.runs.join(thread.thread_id, queued.run_id))).toBe('next');
    expect((await sdk.runs.get(thread.thread_id, queued.run_id)).status).toBe('success');
    expect((await sdk.threads.get(thread.thread_id)).status).toBe('idle');
    const history = await sdk.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(
      history.some((s) => topic(s.values) === 'cancelled'),
      'the interrupted run keeps the steps it completed',
    ).toBe(true);
  });

  test('runs.cancel with wait and rollback deletes the run and what it wrote, and the thread is idle again', async () => {
    const thread = await sdk.threads.create({ graphId: 'agent' });
    await sdk.runs.wait(thread.thread_id, 'agent', { input: { topic: 'kept' } });
    const run = await sdk.runs.create(thread.thread_id, 'agent', { input: { topic: 'rolled back', delay_ms: 1000 } });
    await sdk.runs.cancel(thread.thread_id, run.run_id, true, 'rollback');
    expect(await httpStatus(sdk.runs.get(thread.thread_id, run.run_id))).toBe(404);
    expect(topic((await sdk.threads.getState(thread.thread_id)).values)).toBe('kept');
    expect((await sdk.threads.get(thread.thread_id)).status).toBe('idle');
    expect((await sdk.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(['success']);
  });

  test('runs.cancel leaves a run that has ended as it is; an unknown run fails with 404', async () => {
    const thread = await sdk.threads.create({ graphId: 'agent' });
    const run = await sdk.runs.create(thread.thread_id, 'agent', { input: { topic: 'done' } });
    await sdk.runs.join(thread.thread_id, run.run_id);
    await sdk.runs.cancel(thread.thread_id, run.run_id);
    expect((await sdk.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    expect(await httpStatus(sdk.runs.cancel(thread.thread_id, UNKNOWN))).toBe(404);
  });

  test('assistants.create answers a new assistant of the graph at version 1, which get, search and runs find; its id again fails with 409 unless ifExists is do_nothing', async () => {
    const created = await sdk.assistants.create({ graphId: 'agent', name: 'mine', config: { configurable: { tone: 'dry' } }, metadata: { team: 'sdk' } });
    expect(created.assistant_id).toMatch(UUID);
    expect(created).toMatchObject({ graph_id: 'agent', name: 'mine', version: 1, config: { configurable: { tone: 'dry' } }, metadata: { team: 'sdk' } });
    expect(created.created_at).toMatch(DATE_TIME);
    expect(await sdk.assistants.get(created.assistant_id)).toEqual(created);
    expect((await sdk.assistants.search({ metadata: { team: 'sdk' } })).map((a) => a.assistant_id)).toEqual([created.assistant_id]);
    const thread = await sdk.threads.create({ graphId: 'agent' });
    const run = await sdk.runs.create(thread.thread_id, created.assistant_id, { input: { topic: 'mine' } });
    expect(run.assistant_id).toBe(created.assistant_id);

    expect(await httpStatus(sdk.assistants.create({ graphId: 'agent', assistantId: created.assistant_id }))).toBe(409);
    expect(await sdk.assistants.create({ graphId: 'agent', assistantId: created.assistant_id, ifExists: 'do_nothing', name: 'other' })).toEqual(created);
    const chosen = await sdk.assistants.create({ graphId: 'agent', assistantId: UNKNOWN });
    expect(chosen).toMatchObject({ assistant_id: UNKNOWN, name: 'Untitled', version: 1 });
    expect(await httpStatus(sdk.assistants.create({ graphId: 'no-such-graph' }))).toBe(404);
  });

  test('assistants.update answers the next version: the fields given replace the old ones and metadata is merged', async () => {
    const created = await sdk.assistants.create({ graphId: 'agent', name: 'v1', config: { configurable: { tone: 'dry' } }, metadata: { team: 'sdk' } });
    const updated = await sdk.assistants.update(created.assistant_id, { name: 'v2', config: { configurable: { tone: 'warm' } }, metadata: { stage: 'beta' } });
    expect(updated).toMatchObject({
      assistant_id: created.assistant_id,
      graph_id: 'agent',
      name: 'v2',
      version: 2,
      config: { configurable: { tone: 'warm' } },
      metadata: { team: 'sdk', stage: 'beta' },
      created_at: created.created_at,
    });
    expect(await sdk.assistants.get(created.assistant_id)).toEqual(updated);
    expect(await httpStatus(sdk.assistants.update(UNKNOWN, { name: 'x' }))).toBe(404);
  });

  test('assistants.delete deletes the assistant with its runs; with deleteThreads, the threads whose metadata names it go too', async () => {
    const assistant = await sdk.assistants.create({ graphId: 'agent' });
    const thread = await sdk.threads.create({ graphId: 'agent' });
    const run = await sdk.runs.create(thread.thread_id, assistant.assistant_id, { input: { topic: 'orphan', delay_ms: 1000 } });
    await sdk.assistants.delete(assistant.assistant_id);
    expect(await httpStatus(sdk.assistants.get(assistant.assistant_id))).toBe(404);
    expect(await httpStatus(sdk.runs.get(thread.thread_id, run.run_id))).toBe(404);
    expect((await sdk.threads.get(thread.thread_id)).status, 'its thread stays, idle').toBe('idle');
    expect(await httpStatus(sdk.assistants.delete(assistant.assistant_id))).toBe(404);

    const other = await sdk.assistants.create({ graphId: 'agent' });
    const named = await sdk.threads.create({ metadata: { assistant_id: other.assistant_id } });
    const unnamed = await sdk.threads.create({ metadata: { assistant_id: 'someone else' } });
    await sdk.assistants.delete(other.assistant_id, { deleteThreads: true });
    expect(await httpStatus(sdk.threads.get(named.thread_id))).toBe(404);
    expect((await sdk.threads.get(unnamed.thread_id)).thread_id).toBe(unnamed.thread_id);
  });

  test('store.* is not served: it fails with 404 naming the store', async () => {
    const calls = [
      () => sdk.store.putItem(['docs'], 'k', { v: 1 }),
      () => sdk.store.getItem(['docs'], 'k'),
      () => sdk.store.deleteItem(['docs'], 'k'),
      () => sdk.store.searchItems(['docs']),
      () => sdk.store.listNamespaces(),
    ];
    for (const call of calls) {
      const refused = await refusal(call());
      expect(refused.status).toBe(404);
      expect(refused.message).toMatch(/does not serve the store/);
    }
  });

  test('on the real clock, runs.cancel ends a run in progress at once: it is interrupted and join returns', async () => {
    const real = await Simulator.start({ quiet: true, clock: 'real' });
    try {
      const live = new Client({ apiUrl: real.urls['agent-server'], apiKey: null });
      const thread = await live.threads.create({ graphId: 'agent' });
      const started = Date.now();
      const run = await live.runs.create(thread.thread_id, 'agent', { input: { topic: 'stopped' } });
      await live.runs.cancel(thread.thread_id, run.run_id);
      await live.runs.join(thread.thread_id, run.run_id);
      expect(Date.now() - started, 'well before the 2 s a run takes').toBeLessThan(1_500);
      expect((await live.runs.get(thread.thread_id, run.run_id)).status).toBe('interrupted');
      expect((await live.threads.get(thread.thread_id)).status).toBe('idle');
    } finally {
      await real.close();
    }
  });
});

test.describe('on the real clock, as on the hosted service', () => {
  let real: Simulator;
  let live: Client;
  test.beforeAll(async () => {
    real = await Simulator.start({ quiet: true, strict: true, clock: 'real' });
    live = new Client({ apiUrl: real.urls['agent-server'], apiKey: null });
  });
  test.afterAll(async () => real.close());

  test('a run takes time: while it runs the thread is busy, a second run with reject fails with 409, and join waits for the end (§3)', async () => {
    const thread = await live.threads.create({ graphId: 'agent' });
    const started = Date.now();
    const first = await live.runs.create(thread.thread_id, 'agent', { input: { topic: 'plain input' } });
    expect((await live.threads.get(thread.thread_id)).status).toBe('busy');
    expect(await httpStatus(live.runs.create(thread.thread_id, 'agent', { input: { topic: 'refused' }, multitaskStrategy: 'reject' }))).toBe(409);
    expect(texts(await live.runs.join(thread.thread_id, first.run_id))).toEqual(['prepared: plain input', 'echo: plain input']);
    expect(Date.now() - started, 'a run of the built-in graph takes about 2 s by default').toBeGreaterThanOrEqual(1_500);
    expect((await live.runs.get(thread.thread_id, first.run_id)).status).toBe('success');
    expect((await live.threads.get(thread.thread_id)).status).toBe('idle');
    expect((await live.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([first.run_id]);
  });
});
