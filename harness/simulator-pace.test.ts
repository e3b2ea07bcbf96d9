// The pace a run keeps with a simulator's real clock: reset faster where the run may reset it,
// said at once where it may not, and nothing for a fast clock, a virtual one or another target.
import { expect, test } from '@playwright/test';
import { paceOf, RUN_TIME_SCALE } from './simulator-pace.ts';
import type { Target } from './target.ts';

const simulator = (clock: Target['simulatorClock'], capabilities: Target['capabilities'] = ['reset']) => ({
  name: 'simulator at http://127.0.0.1:8123',
  kind: 'simulator' as const,
  capabilities,
  adminUrl: 'http://127.0.0.1:8123',
  simulatorClock: clock,
});

test('a simulator on a slow real clock that the run resets is reset faster, and the console says so and what it costs', () => {
  const pace = paceOf(simulator({ kind: 'real', time_scale: 1 }));
  expect(pace.resetTo).toBe(RUN_TIME_SCALE);
  expect(pace.notice).toContain('real clock ×1');
  expect(pace.notice).toContain('a revision builds in 90 s');
  expect(pace.notice).toContain(`the run resets it at ×${RUN_TIME_SCALE}`);
  expect(pace.notice).toContain('simulate --clock virtual');
});

test('one the run cannot reset is left as it is, and the console says how to make it faster', () => {
  const pace = paceOf(simulator({ kind: 'real', time_scale: 2 }, []));
  expect(pace.resetTo).toBeUndefined();
  expect(pace.notice).toContain('a revision builds in 45 s');
  expect(pace.notice).toContain(`time_scale: ${RUN_TIME_SCALE}`);
});

test('a fast real clock, a virtual one, and a target that publishes no clock keep their pace in silence', () => {
  expect(paceOf(simulator({ kind: 'real', time_scale: RUN_TIME_SCALE }))).toEqual({});
  expect(paceOf(simulator({ kind: 'virtual' }))).toEqual({});
  expect(paceOf(simulator(undefined))).toEqual({});
});
