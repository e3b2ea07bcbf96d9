// §4.5: streamed output of runs (server-sent events, the open-source agent server, langgraph-api sse.py and api/runs.py).
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, precondition } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { sleep } from '../../harness/time.ts';
import { dataOf, parseSse } from '../../harness/sse.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { discardingWebhook, join, longRun, newThread, readRun, type Run } from './runs-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

// §4.5 leaves the stream's format open ("streamed output"): the rules of the spec ask only that
// the run's output comes back, in whatever form; the SSE rules below judge the reference's format.
// The body is the create-run body and no more ("same body as create run"): no stream_mode.
test('POST /threads/{thread_id}/runs/stream runs the graph and streams its output', { tag: '@STREAM-RUN' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const res = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: { topic: 'streamed' } });
  expectStatus(res, '2xx');
  expect(res.text, res.describe("the stream carries the run's answer")).toContain('echo: streamed');
});

test('POST /runs/stream runs statelessly, accepts webhook and streams output', { tag: '@STREAM-STATELESS' }, async ({ agent, conformanceRun }) => {
  const res = await agent.post('/runs/stream', {
    assistant_id: 'agent',
    input: { topic: 'stateless stream' },
    webhook: discardingWebhook(conformanceRun, 'stream'),
  });
  expectStatus(res, '2xx');
  expect(res.text, res.describe("the stream carries the run's answer")).toContain('echo: stateless stream');
});

/**
 * A stream asked for with stream_mode `events`. §4.5 names the value, not its type: the string is
 * sent first (one mode, as the official SDK sends it), and the list `["events"]` when the string is
 * refused (4xx), so that a target taking either form passes and one refusing both fails.
 */
async function streamInEventsMode(agent: ApiClient, path: string, body: Record<string, unknown>): Promise<ApiResponse> {
  const asString = await agent.post(path, { ...body, stream_mode: 'events' });
  if (asString.status < 400 || asString.status >= 500) return asString;
  return agent.post(path, { ...body, stream_mode: ['events'] });
}

test('stream_mode events is accepted by the streaming endpoints', { tag: '@STREAM-EVENTS-MODE' }, async ({ agent }) => {
  const thread = await newThread(agent);
  for (const [path, topic] of [
    [`/threads/${thread}/runs/stream`, 'events'],
    ['/runs/stream', 'stateless events'],
  ]) {
    const res = await streamInEventsMode(agent, path, { assistant_id: 'agent', input: { topic } });
    expectStatus(res, '2xx');
    expect(res.text.trim(), res.describe('something is streamed')).not.toBe('');
  }
});

test('what a stream answers', { tag: '@STREAM-FORMAT' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const res = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {}, stream_mode: ['values', 'updates'] });
  const events = parseSse(res.text);
  observe(
    'STREAM-FORMAT',
    `status ${res.status}, content-type ${res.headers['content-type'] ?? '(none)'}, events: ${events.map((e) => e.event).join(', ')}; ids ${events.some((e) => e.id !== undefined) ? 'present' : 'absent'}`,
  );
});

/** Both streaming endpoints of §4.5, on a new thread for the stateful one. */
async function streamPaths(agent: ApiClient): Promise<string[]> {
  return [`/threads/${await newThread(agent)}/runs/stream`, '/runs/stream'];
}

test('a stream answers 200 text/event-stream', { tag: '@STREAM-SSE-CONTENT-TYPE' }, async ({ agent }) => {
  for (const path of await streamPaths(agent)) {
    const res = await agent.post(path, { assistant_id: 'agent', input: {} });
    expectStatus(res, 200);
    expect(res.headers['content-type'] ?? '', res.describe('content-type')).toMatch(/^text\/event-stream/);
  }
});

test('each stream event has a name and JSON data', { tag: '@STREAM-SSE-JSON-DATA' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const res = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {}, stream_mode: ['values', 'updates', 'events'] });
  expectStatus(res, 200);
  const events = parseSse(res.text);
  expect(events.length, res.describe('some events')).toBeGreaterThan(1);
  for (const event of events) {
    expect(event.event, res.describe('an event name')).not.toBe('message');
    expect(() => JSON.parse(event.data), res.describe(`JSON data in ${event.event}`)).not.toThrow();
  }
});

test('the first stream event is metadata with {run_id, attempt}', { tag: '@STREAM-SSE-FIRST-METADATA' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const res = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {} });
  const data = expectOpeningMetadata(res, 'the first event');
  const run = await readRun(agent, thread, String(data.run_id));
  expect(run.run_id, 'metadata names the streamed run').toBe(data.run_id);
  // A stateless stream starts the same way: its run has an id too, though no thread to read it on.
  expectOpeningMetadata(await agent.post('/runs/stream', { assistant_id: 'agent', input: {} }), 'the first event of a stateless stream');
});

/** A 200 stream whose first event is metadata with a string run_id and a number attempt; answers that data. */
function expectOpeningMetadata(res: ApiResponse, what: string): { run_id?: unknown; attempt?: unknown } {
  expectStatus(res, 200);
  const [first] = parseSse(res.text);
  expect(first?.event, res.describe(what)).toBe('metadata');
  const data = dataOf(first) as { run_id?: unknown; attempt?: unknown };
  expect(typeof data.run_id, res.describe('metadata.run_id')).toBe('string');
  expect(typeof data.attempt, res.describe('metadata.attempt')).toBe('number');
  return data;
}

test('after metadata, events are named after the requested stream modes', { tag: '@STREAM-SSE-MODE-EVENTS' }, async ({ agent }) => {
  const cases: [unknown, string[]][] = [
    [undefined, ['values']],
    ['updates', ['updates']],
    [
      ['values', 'updates'],
      ['values', 'updates'],
    ],
    ['events', ['events']],
  ];
  for (const [mode, names] of cases) {
    const thread = await newThread(agent);
    const res = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {}, ...(mode === undefined ? {} : { stream_mode: mode }) });
    expectStatus(res, 200);
    const seen = [
      ...new Set(
        parseSse(res.text)
          .slice(1)
          .map((e) => e.event),
      ),
    ].sort();
    expect(seen, res.describe(`stream_mode ${JSON.stringify(mode ?? 'default')}`)).toEqual([...names].sort());
  }
});

test('a run that fails while streaming emits an error event with {error, message}, then the stream ends', { tag: '@STREAM-SSE-ERROR-EVENT' }, async ({
  agent,
}) => {
  const thread = await newThread(agent);
  const res = await agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: { fail: true } });
  expectStatus(res, 200);
  const events = parseSse(res.text);
  const last = events.at(-1);
  expect(last?.event, res.describe('the last event')).toBe('error');
  const data = dataOf(last!) as { error?: unknown; message?: unknown };
  expect(typeof data.error, res.describe('error.error')).toBe('string');
  expect(typeof data.message, res.describe('error.message')).toBe('string');
});

test('the stream closes once the run has ended', { tag: '@STREAM-SSE-CLOSE-AT-END' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const first = await longRun(agent, time, thread);
  // The streamed run is queued behind a delayed one: the stream must stay open until it ran.
  // enqueue is named: the default strategy is a rule of its own (MULTITASK-DEFAULT).
  let taken!: () => void;
  const headersArrived = new Promise<void>((resolve) => (taken = resolve));
  // The streamed run is read the moment the stream closed: one that closes early finds it still queued or running.
  const body = { assistant_id: 'agent', input: { topic: 'closes' }, multitask_strategy: 'enqueue' };
  const closed = agent.post(`/threads/${thread}/runs/stream`, body, { onHeaders: taken, kind: 'timed' }).then(async (res) => {
    const runId = (parseSse(res.text).map(dataOf)[0] as { run_id?: string } | undefined)?.run_id;
    return { res, runId, read: runId === undefined ? undefined : await agent.get<Run>(`/threads/${thread}/runs/${runId}`) };
  });
  // Time passes once the target has taken the request, so the run is queued at the same moment
  // on every run; a target that buffers its streams answers nothing before the end, so not forever.
  await Promise.race([headersArrived, closed, sleep(2000)]);
  // A stream that closes early does so at once: its run is then read before any time passes.
  await Promise.race([closed, sleep(300)]);
  await time.pass(time.hold);
  const { res, runId, read } = await closed;
  expectStatus(res, 200);
  if (!read) skipForPrecondition(`precondition failed: the stream names no run in its first event: ${res.describe()}`, ['STREAM-SSE-FIRST-METADATA']);
  precondition(read, 'read the streamed run');
  expect(read.json.status, read.describe(`run ${runId} had ended when the stream closed`)).toBe('success');
  await join(agent, thread, first.run_id);
});

// Not in the spec's tables (§4.5): the service's join of a run's stream, where the official SDK reconnects
// a stream that broke off (its Location). The run is joined while in progress, and ends after its hold.
test('GET /threads/{thread_id}/runs/{run_id}/stream streams a run in progress until it ends', { tag: '@RUN-JOIN-STREAM' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const run = await longRun(agent, time, thread, { topic: 'joined stream' });
  const joining = agent.get(`/threads/${thread}/runs/${run.run_id}/stream`, { kind: 'timed' });
  // The join is taken in before the run's hold passes: a target that answers it at once has no output yet.
  await Promise.race([joining, sleep(300)]);
  await time.pass(time.hold);
  const res = await joining;
  expectStatus(res, 200);
  expect(res.text, res.describe("the stream carries the run's answer")).toContain('echo: joined stream');
});

test('a refused stream request gets an ordinary JSON error before any stream starts', { tag: '@STREAM-ERRORS-BEFORE-STREAM' }, async ({ agent, time }) => {
  expectJsonError(await agent.post(`/threads/${UNKNOWN}/runs/stream`, { assistant_id: 'agent', input: {} }), 404);
  const thread = await newThread(agent);
  expectJsonError(await agent.post(`/threads/${thread}/runs/stream`, { input: {} }));
  await longRun(agent, time, thread);
  // A refusal comes at once; a stream that started instead would only end after the run in
  // progress and its own, so it is given a moment, then the run's hold to end. The answer is
  // judged with nothing else asked of the run in progress, which a stream taking reject for
  // rollback has deleted.
  const pending = agent.post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: {}, multitask_strategy: 'reject' }, { kind: 'timed' });
  const conflict = await Promise.race([pending, sleep(time.virtual ? 1_000 : time.wall(time.timeouts.settle, 1_000)).then(() => undefined)]);
  if (!conflict) await time.pass(time.hold);
  const answer: ApiResponse = conflict ?? (await pending);
  expect(conflict, answer.describe('the reject conflict was answered at once, not streamed')).toBeDefined();
  expectJsonError(answer);
});
