// The run engine alone, without HTTP: strategies, thread status and the virtual clock.
import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
import { refusalOf } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import { AgentServer } from './agent-server.ts';

function server(runDurationMs?: number) {
  const clock = new VirtualClock();
  const finished: string[] = [];
  const agent = new AgentServer(
    { clock, ids: new IdGenerator('unit') },
    { onFinished: (run) => finished.push(`${run.run_id}:${run.status}`) },
    { runDurationMs },
  );
  const thread = agent.threads.create({ metadata: { graph_id: 'agent' } });
  return { clock, agent, thread: thread.thread_id, finished };
}

test('a run without delay completes at once and leaves the thread idle with its output', () => {
  const { agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'unit' } });
  expect(run.status).toBe('success');
  expect(agent.threads.get(thread).status).toBe('idle');
  expect(agent.threads.state(thread).values).toMatchObject({ topic: 'unit' });
  expect(agent.threads.history(thread).length).toBe(3);
});

test('a delayed run holds the thread busy until the virtual clock passes its delay', () => {
  const { clock, agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { delay_ms: 1000 } });
  expect(run.status).toBe('running');
  expect(agent.threads.get(thread).status).toBe('busy');
  clock.advance(999);
  expect(run.status).toBe('running');
  clock.advance(1);
  expect(run.status).toBe('success');
  expect(agent.threads.get(thread).status).toBe('idle');
});

test('a run with a duration writes one node per share of it', () => {
  const { clock, agent, thread } = server(1000);
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'timed' } });
  const steps = () => agent.threads.history(thread).length;
  expect([run.status, steps()], 'the input checkpoint only').toEqual(['running', 1]);
  clock.advance(500);
  expect([run.status, steps()], 'the first of two nodes after half the duration').toEqual(['running', 2]);
  clock.advance(499);
  expect(run.status, 'the last node waits its share').toBe('running');
  clock.advance(1);
  expect([run.status, steps()]).toEqual(['success', 3]);
});

test('a run whose input asks for a delay takes that long in place of the duration, all of it before its last node', () => {
  const { clock, agent, thread } = server(1000);
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'timed', delay_ms: 300 } });
  const steps = () => agent.threads.history(thread).length;
  expect([run.status, steps()], 'the first node at once').toEqual(['running', 2]);
  clock.advance(299);
  expect(run.status, 'the last node waits the delay').toBe('running');
  clock.advance(1);
  expect([run.status, steps()]).toEqual(['success', 3]);
});

test('reject refuses with 409; rollback deletes the earlier run and its checkpoints; interrupt keeps it', () => {
  const { agent, thread } = server();
  const first = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'first', delay_ms: 1000 } });
  expect(() => agent.runs.create(thread, { assistant_id: 'agent', multitask_strategy: 'reject' })).toThrow(/already running/);
  const second = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'second' }, multitask_strategy: 'rollback' });
  expect(second.status).toBe('success');
  expect(() => agent.runs.get(thread, first.run_id)).toThrow(/not found/);
  expect(agent.threads.history(thread).every((s) => s.values.topic !== 'first')).toBe(true);

  const third = agent.runs.create(thread, { assistant_id: 'agent', input: { delay_ms: 1000 } });
  agent.runs.create(thread, { assistant_id: 'agent', multitask_strategy: 'interrupt' });
  expect(agent.runs.get(thread, third.run_id).status).toBe('interrupted');
});

test('enqueue runs in creation order; the failing one leaves the thread in error', () => {
  const { clock, agent, thread, finished } = server();
  const a = agent.runs.create(thread, { assistant_id: 'agent', input: { delay_ms: 10 } });
  const b = agent.runs.create(thread, { assistant_id: 'agent', input: { fail: true } });
  expect(b.status).toBe('pending');
  clock.advance(10);
  expect(finished).toEqual([`${a.run_id}:success`, `${b.run_id}:error`]);
  expect(agent.threads.get(thread).status).toBe('error');
  expect(agent.runs.result(b)).toEqual({ __error__: b.error });
});

test('a stateless run deletes its temporary thread when it ends', () => {
  const { agent } = server();
  const before = agent.threads.search({ limit: 100 }).length;
  const run = agent.runs.createStateless({ assistant_id: 'agent', input: { topic: 'x' } });
  expect(run.status).toBe('success');
  expect(agent.threads.search({ limit: 100 }).length).toBe(before);
});

test('cancel with interrupt ends a running run, kept and interrupted with the steps it completed, and starts the run queued behind it', () => {
  // RUN-CANCEL
  const { clock, agent, thread, finished } = server();
  const first = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'cut', delay_ms: 1000 } });
  const queued = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'next', delay_ms: 1000 }, multitask_strategy: 'enqueue' });
  agent.runs.cancel(thread, first.run_id, 'interrupt');
  expect(agent.runs.get(thread, first.run_id).status).toBe('interrupted');
  expect(finished, 'a cancelled run is told as finished (its webhook)').toEqual([`${first.run_id}:interrupted`]);
  expect(agent.threads.history(thread, { limit: 100 }).some((s) => s.values.topic === 'cut')).toBe(true);
  expect([queued.status, agent.threads.get(thread).status]).toEqual(['running', 'busy']);
  agent.runs.cancel(thread, queued.run_id, 'interrupt');
  expect(agent.threads.get(thread).status).toBe('idle');
  clock.advance(1000);
  expect(agent.runs.get(thread, queued.run_id).status, 'a cancelled run never runs on').toBe('interrupted');
});

test('cancel with rollback deletes the run and what it wrote; a run that has ended is left as it is; an unknown run is a 404', () => {
  // RUN-CANCEL
  const { clock, agent, thread } = server();
  const done = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'kept' } });
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'gone', delay_ms: 1000 } });
  agent.runs.cancel(thread, run.run_id, 'rollback');
  expect(refusalOf(() => agent.runs.get(thread, run.run_id))?.status).toBe(404);
  expect(agent.threads.state(thread).values.topic).toBe('kept');
  expect(agent.threads.get(thread).status).toBe('idle');
  clock.advance(1000);
  expect(agent.threads.state(thread).values.topic, 'it never runs on').toBe('kept');
  agent.runs.cancel(thread, done.run_id, 'rollback');
  expect(agent.runs.get(thread, done.run_id).status).toBe('success');
  expect(refusalOf(() => agent.runs.cancel(thread, '00000000-0000-4000-8000-000000000000', 'interrupt'))?.status).toBe(404);
});

test('deleting an assistant deletes its runs (those in progress stop) and its crons; its threads stay and go on with their other runs', () => {
  // ASSISTANT-DELETE
  const { clock, agent, thread } = server();
  const assistant = agent.assistants.create({ graph_id: 'agent' });
  const own = agent.runs.create(thread, { assistant_id: assistant.assistant_id, input: { delay_ms: 1000 } });
  const other = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'other' }, multitask_strategy: 'enqueue' });
  agent.crons.createForThread(thread, { assistant_id: assistant.assistant_id, schedule: '* * * * *' });
  const named = agent.threads.create({ metadata: { assistant_id: assistant.assistant_id } });
  agent.deleteAssistant(assistant.assistant_id, false);
  expect(refusalOf(() => agent.assistants.get(assistant.assistant_id))?.status).toBe(404);
  expect(refusalOf(() => agent.runs.get(thread, own.run_id))?.status).toBe(404);
  expect(agent.runs.get(thread, other.run_id).status, 'the next run of the thread starts').toBe('success');
  expect(agent.crons.search({})).toEqual([]);
  expect(agent.threads.get(named.thread_id).thread_id, 'without delete_threads its threads stay').toBe(named.thread_id);
  clock.advance(120_000);
  expect(agent.runs.list(thread, {}).map((r) => r.run_id)).toEqual([other.run_id]);

  const second = agent.assistants.create({ graph_id: 'agent' });
  const hers = agent.threads.create({ metadata: { assistant_id: second.assistant_id } });
  agent.deleteAssistant(second.assistant_id, true);
  expect(refusalOf(() => agent.threads.get(hers.thread_id))?.status).toBe(404);
  expect(refusalOf(() => agent.deleteAssistant(second.assistant_id, false))?.status).toBe(404);
});
