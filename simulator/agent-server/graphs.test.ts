// The built-in graph without a run: what its nodes write, how a run's input splits into a state
// update and the behaviour it asks for, how updates combine with state (the reducers), and which
// node comes next. The run engine and thread supersteps are built on these.
import { expect, test } from '@playwright/test';
import { applyUpdate, findGraph, isKnownNode, nextAfter, splitInput, type GraphDefinition } from './graphs.ts';

const agent: GraphDefinition = findGraph('agent')!;
const ai = (content: string) => ({ role: 'ai', content });

test('the agent graph runs prepare then respond, each answering the last human message', () => {
  expect(agent.nodes).toEqual(['prepare', 'respond']);
  const state = { messages: [{ role: 'human', content: 'first' }, ai('reply'), { role: 'user', content: 'second' }, ai('again')], topic: 'ignored' };
  expect(agent.write('prepare', state)).toEqual({ messages: [ai('prepared: second')] });
  expect(agent.write('respond', state)).toEqual({ messages: [ai('echo: second')] });
  expect(agent.write('respond', { messages: [{ type: 'human', content: 'typed' }] }), 'a LangChain message names its kind in type').toEqual({
    messages: [ai('echo: typed')],
  });
});

test('without a human message the graph answers the topic, and without either an empty text', () => {
  expect(agent.write('prepare', { topic: 'weather' })).toEqual({ messages: [ai('prepared: weather')] });
  expect(agent.write('respond', { messages: [ai('only ai')], topic: 'weather' })).toEqual({ messages: [ai('echo: weather')] });
  expect(agent.write('respond', { messages: 'not a list', topic: 7 })).toEqual({ messages: [ai('echo: ')] });
  expect(agent.write('respond', {})).toEqual({ messages: [ai('echo: ')] });
});

test('a run input is split into the state update and the delay, failure and interrupt it asks for', () => {
  expect(splitInput({ topic: 't', messages: [], delay_ms: 250, fail: true, interrupt: true })).toEqual({
    update: { topic: 't', messages: [] },
    controls: { delayMs: 250, fail: true, interrupt: true },
  });
  const none = { update: {}, controls: { delayMs: 0, fail: false, interrupt: false } };
  expect(splitInput(null)).toEqual(none);
  expect(splitInput(undefined)).toEqual(none);
  expect(splitInput({ delay_ms: 0, fail: false, interrupt: false })).toEqual(none);
});

test('only a positive finite delay counts, and only true asks for a failure or an interrupt', () => {
  expect(splitInput({ delay_ms: '1500' }).controls.delayMs, 'a numeric string').toBe(1500);
  for (const delay_ms of [-5, 'soon', Infinity, null]) expect(splitInput({ delay_ms }).controls.delayMs).toBe(0);
  expect(splitInput({ fail: 'true', interrupt: 1 }).controls).toEqual({ delayMs: 0, fail: false, interrupt: false });
});

test('an update appends messages and replaces every other key, leaving its inputs unchanged', () => {
  const values = { messages: [ai('a')], topic: 'old', nested: { keep: false } };
  const update = { messages: [ai('b'), ai('c')], topic: 'new', nested: { keep: true } };
  const out = applyUpdate(agent, values, update);
  expect(out).toEqual({ messages: [ai('a'), ai('b'), ai('c')], topic: 'new', nested: { keep: true } });
  expect(values).toEqual({ messages: [ai('a')], topic: 'old', nested: { keep: false } });
  update.nested.keep = false;
  expect(out.nested, 'the result shares nothing with the update').toEqual({ keep: true });

  expect(applyUpdate(agent, {}, { messages: ai('single') }), 'a single message is appended as one').toEqual({ messages: [ai('single')] });
  expect(applyUpdate(agent, { messages: 'broken' }, { messages: [ai('x')] }), 'a non-list is started over').toEqual({ messages: [ai('x')] });
  expect(applyUpdate(agent, { topic: 'kept' }, {})).toEqual({ topic: 'kept' });
});

test('without a graph every key of an update replaces the current value', () => {
  expect(applyUpdate(undefined, { messages: [ai('a')], topic: 'x' }, { messages: [ai('b')] })).toEqual({ messages: [ai('b')], topic: 'x' });
});

test('the node due next follows the graph order, starting at its first node after the input or start', () => {
  expect(nextAfter(agent, '__input__')).toEqual(['prepare']);
  expect(nextAfter(agent, '__start__')).toEqual(['prepare']);
  expect(nextAfter(agent, 'prepare')).toEqual(['respond']);
  expect(nextAfter(agent, 'respond')).toEqual([]);
  expect(nextAfter(agent, 'nowhere')).toEqual([]);
  expect(nextAfter(undefined, '__input__')).toEqual([]);
  expect(nextAfter(undefined, 'prepare')).toEqual([]);
});

test("the nodes an update may name are the input, the start and the graph's own", () => {
  // THREAD-SUPERSTEPS-AS-NODE
  for (const node of ['__input__', '__start__', 'prepare', 'respond']) expect(isKnownNode(agent, node), node).toBe(true);
  for (const node of ['Prepare', 'prepare ', '']) expect(isKnownNode(agent, node), node).toBe(false);
  expect(findGraph('nosuch')).toBeUndefined();
  expect(findGraph(undefined)).toBeUndefined();
});
