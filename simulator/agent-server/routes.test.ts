// The agent server's route table (routes.ts), in process: each row reaches its store with the
// request's path, query and body, and answers the documented status and headers
// (content-location on run creation, location on streams, 204 with no body on deletion).
// What the stores do with those parameters is tested beside them (threads, runs, crons, stream).
import { expect, test } from '@playwright/test';
import type { Cron, Run, Thread, ThreadState } from '../../specs/types/agent-server.ts';
import { Simulator } from '../simulator.ts';

/** A fresh simulator and its requests; `runDurationMs` keeps runs in progress until the clock moves. */
function agentServer(runDurationMs?: number) {
  const sim = new Simulator({ seed: 'agent-routes', quiet: true, runDurationMs });
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    sim.request('agent-server', path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });
  /** A JSON answer that must be 200. */
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call(method, path, body);
    expect(res.status, `${method} ${path}`).toBe(200);
    return (await res.json()) as T;
  };
  return { sim, call, json };
}

const input = (topic: string) => ({ assistant_id: 'agent', input: { topic } });
/** The ids of a server-sent event stream, in order. */
const eventIds = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

test('the info, ok and assistant rows answer their documents', async () => {
  const { json } = agentServer();
  expect(await json('GET', '/info')).toMatchObject({ flags: { assistants: true, crons: true } });
  expect(await json('GET', '/ok')).toEqual({ ok: true });
  const [assistant] = await json<{ assistant_id: string }[]>('POST', '/assistants/search', { graph_id: 'agent' });
  expect(await json('GET', '/assistants/agent')).toMatchObject({ assistant_id: assistant.assistant_id, graph_id: 'agent' });
});

test('a thread created with metadata and supersteps is found by get, search, copy and state; delete answers 204 with no body', async () => {
  const { call, json } = agentServer();
  const supersteps = [{ updates: [{ as_node: '__start__', values: { topic: 's' } }] }];
  const thread = await json<Thread>('POST', '/threads', { metadata: { graph_id: 'agent', owner: 'me' }, supersteps });
  expect(await json('GET', `/threads/${thread.thread_id}`)).toEqual(thread);
  expect((await json<ThreadState>('GET', `/threads/${thread.thread_id}/state`)).values).toEqual({ topic: 's' });
  const found = await json<Thread[]>('POST', '/threads/search', { metadata: { owner: 'me' } });
  expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
  const copy = await json<Thread>('POST', `/threads/${thread.thread_id}/copy`);
  expect([copy.thread_id === thread.thread_id, copy.metadata]).toEqual([false, thread.metadata]);

  const deleted = await call('DELETE', `/threads/${thread.thread_id}`);
  expect([deleted.status, await deleted.text(), deleted.headers.get('content-type')]).toEqual([204, '', null]);
  expect((await call('GET', `/threads/${thread.thread_id}`)).status).toBe(404);
});

test('a run created answers content-location; get, join and the join stream find it', async () => {
  const { call, json } = agentServer();
  const thread = await json<Thread>('POST', '/threads', {});
  const created = await call('POST', `/threads/${thread.thread_id}/runs`, input('x'));
  const run = (await created.json()) as Run;
  const where = `/threads/${thread.thread_id}/runs/${run.run_id}`;
  expect([created.status, created.headers.get('content-location'), run.thread_id]).toEqual([200, where, thread.thread_id]);
  expect((await json<Run>('GET', where)).run_id).toBe(run.run_id);

  const joined = await call('GET', `${where}/join`);
  expect(joined.headers.get('content-location')).toBe(where);
  expect(await joined.json()).toMatchObject({ topic: 'x', messages: [{ content: 'prepared: x' }, { content: 'echo: x' }] });

  const stream = await call('GET', `${where}/stream`);
  expect(stream.headers.get('content-type')).toContain('text/event-stream');
  expect([stream.headers.get('content-location'), stream.headers.get('location')]).toEqual([where, `${where}/stream`]);
  const all = eventIds(await stream.text());
  expect(all[0]).toBe(0);
  // Last-Event-ID resumes after the event it names.
  const resumed = await call('GET', `${where}/stream`, undefined, { 'last-event-id': String(all[1]) });
  expect(eventIds(await resumed.text())).toEqual(all.slice(2));
  // A blank Last-Event-ID is no header: the whole stream again, metadata (id 0) first.
  const blank = await call('GET', `${where}/stream`, undefined, { 'last-event-id': '' });
  expect(eventIds(await blank.text())).toEqual(all);
});

test('stream and wait rows create a run on the thread, or a stateless one at /runs', async () => {
  const { call, json } = agentServer();
  const thread = await json<Thread>('POST', '/threads', {});
  const onThread = new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`);

  const streamed = await call('POST', `/threads/${thread.thread_id}/runs/stream`, { ...input('a'), stream_mode: ['updates'] });
  const where = streamed.headers.get('content-location')!;
  expect(where).toMatch(onThread);
  expect(streamed.headers.get('location')).toBe(`${where}/stream`);
  const events = [...(await streamed.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
  expect(new Set(events), 'the stream_mode of the body').toEqual(new Set(['metadata', 'updates']));

  const waited = await call('POST', `/threads/${thread.thread_id}/runs/wait`, input('b'));
  expect(waited.headers.get('content-location')).toMatch(onThread);
  expect(await waited.json()).toMatchObject({ topic: 'b' });
  expect((await json<Run[]>('GET', `/threads/${thread.thread_id}/runs`)).length).toBe(2);

  const stateless = await call('POST', '/runs/stream', input('c'));
  expect(stateless.headers.get('content-location')).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
  expect(stateless.headers.get('location')).toBeNull();
  expect(await stateless.text()).toContain('echo: c');
  const statelessWait = await call('POST', '/runs/wait', input('d'));
  expect(statelessWait.headers.get('content-location')).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
  expect(await statelessWait.json()).toMatchObject({ topic: 'd' });
});

test('listRuns passes limit, offset and status from the query', async () => {
  const { sim, json } = agentServer(1_000);
  const thread = await json<Thread>('POST', '/threads', {});
  const runs = `/threads/${thread.thread_id}/runs`;
  const first = await json<Run>('POST', runs, input('1'));
  sim.advance(5_000);
  const second = await json<Run>('POST', runs, input('2'));
  const ids = async (query: string) => (await json<Run[]>('GET', `${runs}${query}`)).map((r) => r.run_id);
  expect(await ids('')).toEqual([second.run_id, first.run_id]);
  expect(await ids('?limit=1')).toEqual([second.run_id]);
  expect(await ids('?limit=1&offset=1')).toEqual([first.run_id]);
  expect(await ids('?status=success')).toEqual([first.run_id]);
  expect(await ids('?status=running')).toEqual([second.run_id]);
});

test('history takes limit, and before as a checkpoint id or a checkpoint config; state takes a checkpoint id', async () => {
  const { json } = agentServer();
  const thread = await json<Thread>('POST', '/threads', {});
  await json('POST', `/threads/${thread.thread_id}/runs/wait`, input('h'));
  const history = `/threads/${thread.thread_id}/history`;
  const all = (await json<ThreadState[]>('POST', history, {})).map((s) => s.checkpoint_id);
  expect(all.length).toBeGreaterThanOrEqual(3);
  const ids = async (body: unknown) => (await json<ThreadState[]>('POST', history, body)).map((s) => s.checkpoint_id);
  expect(await ids({ limit: 2 })).toEqual(all.slice(0, 2));
  expect(await ids({ before: all[0], limit: 1 })).toEqual([all[1]]);
  expect(await ids({ before: { configurable: { checkpoint_id: all[0] } } })).toEqual(all.slice(1));
  expect((await json<ThreadState>('GET', `/threads/${thread.thread_id}/state/${all[2]}`)).checkpoint_id).toBe(all[2]);
});

test('crons are created on a thread or stateless, searched, and deleted with 204 and no body', async () => {
  const { call, json } = agentServer();
  const thread = await json<Thread>('POST', '/threads', {});
  const cron = { assistant_id: 'agent', schedule: '* * * * *' };
  const onThread = await json<Cron>('POST', `/threads/${thread.thread_id}/runs/crons`, cron);
  const stateless = await json<Cron>('POST', '/runs/crons', cron);
  expect([onThread.thread_id, stateless.thread_id]).toEqual([thread.thread_id, null]);
  const search = async (body: unknown) => (await json<Cron[]>('POST', '/runs/crons/search', body)).map((c) => c.cron_id).sort();
  expect(await search({ thread_id: thread.thread_id })).toEqual([onThread.cron_id]);

  const deleted = await call('DELETE', `/runs/crons/${stateless.cron_id}`);
  expect([deleted.status, await deleted.text(), deleted.headers.get('content-type')]).toEqual([204, '', null]);
  expect(await search({})).toEqual([onThread.cron_id]);
  expect((await call('DELETE', `/runs/crons/${stateless.cron_id}`)).status).toBe(404);
});

test('count is no thread id, update answers the thread, and cancel answers 202, or 204 with wait, with no body', async () => {
  const { call, json } = agentServer(1000);
  const thread = await json<Thread>('POST', '/threads', { metadata: { graph_id: 'agent', k: 1 } });
  expect(await json('POST', '/threads/count', { metadata: { k: 1 } })).toBe(1);
  expect(await json<Thread>('PATCH', `/threads/${thread.thread_id}`, { metadata: { j: 2 } })).toMatchObject({ metadata: { graph_id: 'agent', k: 1, j: 2 } });
  const first = await json<Run>('POST', `/threads/${thread.thread_id}/runs`, input('first'));
  const second = await json<Run>('POST', `/threads/${thread.thread_id}/runs`, { ...input('second'), multitask_strategy: 'enqueue' });
  const cancelled = await call('POST', `/threads/${thread.thread_id}/runs/${first.run_id}/cancel`);
  expect([cancelled.status, await cancelled.text()]).toEqual([202, '']);
  expect((await json<Run>('GET', `/threads/${thread.thread_id}/runs/${first.run_id}`)).status).toBe('interrupted');
  const waited = await call('POST', `/threads/${thread.thread_id}/runs/${second.run_id}/cancel?wait=1&action=rollback`);
  expect([waited.status, await waited.text()]).toEqual([204, '']);
  expect((await call('GET', `/threads/${thread.thread_id}/runs/${second.run_id}`)).status).toBe(404);
  expect((await call('POST', `/threads/${thread.thread_id}/runs/${first.run_id}/cancel?action=stop`)).status, 'an action it does not know').toBe(422);
});

test('assistants are created, updated to their next version and deleted (204, with the threads that name them when asked)', async () => {
  const { call, json } = agentServer();
  const created = await json<{ assistant_id: string; version: number }>('POST', '/assistants', { graph_id: 'agent', name: 'mine' });
  expect(created.version).toBe(1);
  expect(await json('PATCH', `/assistants/${created.assistant_id}`, { name: 'ours' })).toMatchObject({ name: 'ours', version: 2 });
  const thread = await json<Thread>('POST', '/threads', { metadata: { assistant_id: created.assistant_id } });
  const deleted = await call('DELETE', `/assistants/${created.assistant_id}?delete_threads=true`);
  expect([deleted.status, await deleted.text()]).toEqual([204, '']);
  expect((await call('GET', `/threads/${thread.thread_id}`)).status).toBe(404);
  expect((await call('POST', '/assistants', { name: 'no graph' })).status).toBe(422);
});

test('the store, which the SDK calls, answers 404 saying the simulator does not serve it', async () => {
  const { call } = agentServer();
  const res = await call('PUT', '/store/items', { namespace: ['a'], key: 'k', value: {} });
  expect(res.status).toBe(404);
  expect(((await res.json()) as { detail: string }).detail).toContain('does not serve the store');
});
