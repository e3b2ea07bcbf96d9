// The run engine alone, without HTTP: strategies, thread status and the virtual clock.
import { expect, test } from '@playwright/test';
import { VirtualClock } from '../clock.ts';
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
