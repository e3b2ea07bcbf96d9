// Cron jobs on the virtual clock, without HTTP: schedules, the runs they start, search and delete.
import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import { AgentServer } from './agent-server.ts';

const MINUTE = 60_000;

function server() {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:30.000Z'));
  const finished: { run: string; thread: string; webhook?: string }[] = [];
  const agent = new AgentServer(
    { clock, ids: new IdGenerator('crons') },
    { onFinished: (run) => finished.push({ run: run.run_id, thread: run.thread_id, webhook: run.webhook }) },
  );
  const thread = agent.threads.create({ metadata: { graph_id: 'agent' } }).thread_id;
  return { clock, agent, thread, finished };
}

function refusal(action: () => unknown): { status: number; message: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

test('a thread cron answers its next run date and starts a run on its thread at each scheduled time', () => {
  const { clock, agent, thread, finished } = server();
  const cron = agent.crons.createForThread(thread, {
    assistant_id: 'agent',
    schedule: '*/2 * * * *',
    input: { topic: 'tick' },
    webhook: 'https://hooks.example.com/c',
  });
  expect(cron).toMatchObject({ thread_id: thread, schedule: '*/2 * * * *', next_run_date: '2026-01-01T00:02:00.000Z', enabled: true, end_time: null });
  expect(cron.payload).toMatchObject({ input: { topic: 'tick' }, webhook: 'https://hooks.example.com/c', assistant_id: cron.assistant_id });
  clock.advance(MINUTE);
  expect(finished).toEqual([]);
  clock.advance(MINUTE);
  clock.advance(4 * MINUTE);
  expect(finished).toHaveLength(3);
  expect(finished.every((f) => f.thread === thread && f.webhook === 'https://hooks.example.com/c')).toBe(true);
  expect(agent.runs.list(thread, {})).toHaveLength(3);
  expect(agent.crons.search({ thread_id: thread })[0].next_run_date).toBe('2026-01-01T00:08:00.000Z');
});

test('a stateless cron starts each run on a new thread that does not outlive it', () => {
  const { clock, agent, finished } = server();
  const cron = agent.crons.createStateless({ assistant_id: 'agent', schedule: '* * * * *' });
  expect(cron.thread_id).toBeNull();
  clock.advance(2 * MINUTE);
  expect(finished).toHaveLength(2);
  expect(finished[0].thread).not.toBe(finished[1].thread);
  expect(agent.threads.search({ limit: 100 })).toHaveLength(1);
});

test('the schedule is read in the cron timezone, UTC by default', () => {
  const { agent, thread } = server();
  expect(agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '0 9 * * *' }).next_run_date).toBe('2026-01-01T09:00:00.000Z');
  expect(agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '0 9 * * *', timezone: 'Europe/Paris' }).next_run_date).toBe(
    '2026-01-01T08:00:00.000Z',
  );
});

test('a disabled cron, or one past its end_time, starts nothing and has no next run date', () => {
  const { clock, agent, thread, finished } = server();
  expect(agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * *', enabled: false }).next_run_date).toBeNull();
  const ending = agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * *', end_time: '2026-01-01T00:02:00.000Z' });
  clock.advance(10 * MINUTE);
  expect(finished).toHaveLength(2);
  expect(agent.crons.search({ thread_id: thread }).find((c) => c.cron_id === ending.cron_id)?.next_run_date).toBeNull();
});

test('bad schedules, time zones, assistants, threads and webhook URLs are refused and create nothing', () => {
  const { agent, thread } = server();
  expect(refusal(() => agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: 'not a cron at all' }))).toMatchObject({
    status: 422,
    message: expect.stringMatching(/Invalid cron schedule/),
  });
  expect(refusal(() => agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '61 * * * *' })).message).toMatch(/61/);
  expect(refusal(() => agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * * *' })).message).toMatch(/five fields/);
  expect(refusal(() => agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * *', timezone: 'Mars/Olympus' })).message).toMatch(
    /Unknown timezone/,
  );
  expect(refusal(() => agent.crons.createForThread(thread, { assistant_id: 'nosuch', schedule: '* * * * *' })).status).toBe(404);
  expect(refusal(() => agent.crons.createForThread('00000000-0000-4000-8000-000000000000', { assistant_id: 'agent', schedule: '* * * * *' })).status).toBe(404);
  expect(refusal(() => agent.crons.createStateless({ assistant_id: 'agent', schedule: '* * * * *', webhook: 'ftp://x' })).status).toBe(422);
  expect(agent.crons.search({})).toEqual([]);
});

test('search filters by thread and assistant, pages with limit and offset, newest first by default', () => {
  const { agent, thread } = server();
  const other = agent.threads.create({}).thread_id;
  const a = agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * *' });
  const b = agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '*/5 * * * *' });
  const c = agent.crons.createForThread(other, { assistant_id: 'agent', schedule: '* * * * *' });
  const d = agent.crons.createStateless({ assistant_id: 'agent', schedule: '* * * * *' });
  const ids = (crons: { cron_id: string }[]) => crons.map((x) => x.cron_id);
  expect(ids(agent.crons.search({ thread_id: thread }))).toEqual([b.cron_id, a.cron_id]);
  expect(ids(agent.crons.search({ thread_id: thread, sort_order: 'asc' }))).toEqual([a.cron_id, b.cron_id]);
  expect(ids(agent.crons.search({ assistant_id: 'agent' }))).toEqual([d.cron_id, c.cron_id, b.cron_id, a.cron_id]);
  expect(ids(agent.crons.search({ assistant_id: a.assistant_id, limit: 2, offset: 1 }))).toEqual([c.cron_id, b.cron_id]);
  expect(agent.crons.search({ assistant_id: 'nosuch' })).toEqual([]);
});

test('a deleted cron starts no more runs; deleting it again is a 404', () => {
  const { clock, agent, thread, finished } = server();
  const cron = agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * *' });
  clock.advance(MINUTE);
  agent.crons.delete(cron.cron_id);
  clock.advance(10 * MINUTE);
  expect(finished).toHaveLength(1);
  expect(refusal(() => agent.crons.delete(cron.cron_id)).status).toBe(404);
});

test('a tick whose run is refused is skipped and the cron keeps its schedule', () => {
  const { clock, agent, thread, finished } = server();
  agent.runs.create(thread, { assistant_id: 'agent', input: { delay_ms: 90_000 } });
  agent.crons.createForThread(thread, { assistant_id: 'agent', schedule: '* * * * *', multitask_strategy: 'reject' });
  clock.advance(3 * MINUTE);
  // 00:01 is refused (the thread is busy until 00:02); 00:02 and 00:03 run.
  expect(finished).toHaveLength(3);
});
