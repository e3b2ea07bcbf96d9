// A run's server-sent events without a socket: the reply's stream function is called with plain
// write/end callbacks, as the server would. What it replays, what it filters by stream mode, how a
// reconnecting client resumes, and when the stream ends.
import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
import type { StreamReply } from '../http/router.ts';
import { IdGenerator } from '../ids.ts';
import { AgentServer } from './agent-server.ts';
import { modesOf, streamRun, waitForResult } from './stream.ts';

function server() {
  const clock = new VirtualClock();
  const agent = new AgentServer({ clock, ids: new IdGenerator('stream') });
  const thread = agent.threads.create({ metadata: { graph_id: 'agent' } }).thread_id;
  return { clock, agent, thread };
}

interface Sse {
  event: string;
  data: unknown;
  id: number;
}

/** Plays a stream reply into a list of parsed events; `disconnect` is the client going away. */
function listen(reply: StreamReply) {
  const chunks: string[] = [];
  let ended = false;
  let disconnect!: () => void;
  const closed = new Promise<void>((resolve) => (disconnect = resolve));
  void reply.stream(
    (chunk) => chunks.push(chunk),
    () => (ended = true),
    closed,
  );
  const events = (): Sse[] =>
    chunks.map((chunk) => {
      const match = /^event: (.+)\ndata: (.*)\nid: (\d+)\n\n$/.exec(chunk);
      if (!match) throw new Error(`not one SSE event: ${JSON.stringify(chunk)}`);
      return { event: match[1], data: JSON.parse(match[2]), id: Number(match[3]) };
    });
  return { events, ended: () => ended, disconnect };
}

test('the stream modes of a run are those it was created with, values by default', () => {
  const { agent, thread } = server();
  expect(modesOf(agent.runs.create(thread, { assistant_id: 'agent' }))).toEqual(['values']);
  expect(modesOf(agent.runs.create(thread, { assistant_id: 'agent', stream_mode: 'updates' }))).toEqual(['updates']);
  expect(modesOf(agent.runs.create(thread, { assistant_id: 'agent', stream_mode: ['events', 'values'] }))).toEqual(['events', 'values']);
});

test('a finished run replays metadata and the events of its modes in order, then the stream ends', () => {
  const { agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'sse' }, stream_mode: ['updates'] });
  const reply = streamRun(run, modesOf(run), { location: '/somewhere' });
  expect(reply.status).toBe(200);
  expect(reply.headers).toEqual({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', location: '/somewhere' });

  const sse = listen(reply);
  expect(sse.ended()).toBe(true);
  const events = sse.events();
  expect(events.map((e) => e.event)).toEqual(['metadata', 'updates', 'updates']);
  expect(events[0].data).toEqual({ run_id: run.run_id, attempt: 1 });
  expect(events[1].data).toEqual({ prepare: { messages: [{ role: 'ai', content: 'prepared: sse' }] } });
  expect(events[2].data).toEqual({ respond: { messages: [{ role: 'ai', content: 'echo: sse' }] } });
  expect(
    events.map((e) => e.id),
    'each event carries its position in the run log',
  ).toEqual(run.events.filter((e) => e.event === 'metadata' || e.event === 'updates').map((e) => e.id));
});

test('the values mode streams the state after the input and after each node', () => {
  const { agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'v' } });
  const values = listen(streamRun(run, modesOf(run), {}))
    .events()
    .filter((e) => e.event === 'values');
  expect(values.map((e) => (e.data as { messages?: unknown[] }).messages?.length ?? 0)).toEqual([0, 1, 2]);
  expect(values.at(-1)?.data).toEqual(agent.threads.state(thread).values);
});

test('a failed run streams its error event whatever modes were asked for', () => {
  // STREAM-SSE-ERROR-EVENT
  const { agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { fail: true }, stream_mode: ['updates'] });
  const events = listen(streamRun(run, ['updates'], {})).events();
  expect(events.map((e) => e.event)).toEqual(['metadata', 'updates', 'error']);
  expect(events.at(-1)?.data).toMatchObject({ error: 'SimulatedNodeError' });
});

test('a reconnecting client gets only the events after the last one it saw', () => {
  const { agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'resume' }, stream_mode: ['values', 'updates'] });
  const all = listen(streamRun(run, modesOf(run), {})).events();
  const lastSeen = all[2].id;
  const resumed = listen(streamRun(run, modesOf(run), {}, lastSeen));
  expect(resumed.events()).toEqual(all.slice(3));
  expect(resumed.ended()).toBe(true);
  expect(listen(streamRun(run, modesOf(run), {}, all.at(-1)!.id)).events(), 'nothing after the last event').toEqual([]);
});

test('a run in progress streams its events as they happen and ends the stream when it ends', () => {
  const { clock, agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'live', delay_ms: 1000 }, stream_mode: ['updates'] });
  const sse = listen(streamRun(run, modesOf(run), {}));
  expect(sse.events().map((e) => e.event)).toEqual(['metadata', 'updates']);
  expect(sse.ended()).toBe(false);
  clock.advance(999);
  expect(sse.events()).toHaveLength(2);
  clock.advance(1);
  expect(sse.events().map((e) => e.event)).toEqual(['metadata', 'updates', 'updates']);
  expect(sse.ended()).toBe(true);
  expect(run.listeners.size, 'the stream stops listening once the run ends').toBe(0);
});

test('a client that goes away stops receiving events', async () => {
  const { clock, agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { delay_ms: 1000 }, stream_mode: ['updates'] });
  const sse = listen(streamRun(run, modesOf(run), {}));
  expect(run.listeners.size).toBe(1);
  sse.disconnect();
  await Promise.resolve();
  expect(run.listeners.size).toBe(0);
  clock.advance(1000);
  expect(run.status).toBe('success');
  expect(sse.events().map((e) => e.event)).toEqual(['metadata', 'updates']);
  expect(sse.ended()).toBe(false);
});

test('waiting for a result answers the final values once the run ends, or its error', async () => {
  const { clock, agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'wait', delay_ms: 500 } });
  let answered: Record<string, unknown> | undefined;
  const waiting = waitForResult(agent.runs, run).then((result) => (answered = result));
  await Promise.resolve();
  expect(answered).toBeUndefined();
  clock.advance(500);
  await waiting;
  expect(answered).toEqual({
    topic: 'wait',
    messages: [
      { role: 'ai', content: 'prepared: wait' },
      { role: 'ai', content: 'echo: wait' },
    ],
  });

  const failed = agent.runs.create(thread, { assistant_id: 'agent', input: { fail: true } });
  expect(await waitForResult(agent.runs, failed)).toEqual({ __error__: { error: 'SimulatedNodeError', message: expect.stringContaining('fail: true') } });
});
