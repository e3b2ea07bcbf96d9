// The chaos mode's decisions: a seed fixes them, the rates hold over many draws, and a rate of 0
// injects nothing.
import { expect, test } from '@playwright/test';
import { Chaos, type ChaosDecision, chaosOptionsProblem } from './chaos.ts';

const draws = (chaos: Chaos, n: number): ChaosDecision[] => Array.from({ length: n }, () => chaos.next());

test('the same seed gives the same decisions; another seed, others', () => {
  const options = { unavailableRate: 0.1, resetRate: 0.1, jitterMs: 50 };
  const a = draws(new Chaos({ seed: 'one', ...options }), 500);
  expect(draws(new Chaos({ seed: 'one', ...options }), 500)).toEqual(a);
  expect(draws(new Chaos({ seed: 'two', ...options }), 500)).not.toEqual(a);
});

test('the rates are honoured over many draws, and the counts say what was decided', () => {
  const n = 20_000;
  const chaos = new Chaos({ seed: 'rates', unavailableRate: 0.02, resetRate: 0.01, jitterMs: 100, latencyMs: 5 });
  const decided = draws(chaos, n);
  const share = (action: ChaosDecision['action']) => decided.filter((d) => d.action === action).length / n;
  // Binomial: n·p ± 4 standard deviations.
  const within = (observed: number, p: number) => expect(Math.abs(observed - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
  within(share('unavailable'), 0.02);
  within(share('reset'), 0.01);
  // Every request waits the latency; a forwarded one 0..100 ms more, about 50 on average.
  expect(decided.every((d) => d.delayMs >= 5 && d.delayMs <= 105)).toBe(true);
  expect(decided.filter((d) => d.action !== 'forward').every((d) => d.delayMs === 5)).toBe(true);
  const forwarded = decided.filter((d) => d.action === 'forward');
  const meanJitter = forwarded.reduce((sum, d) => sum + d.delayMs - 5, 0) / forwarded.length;
  expect(Math.abs(meanJitter - 50)).toBeLessThan(2);
  expect(new Set(forwarded.map((d) => d.delayMs)).size).toBe(101);
  expect(chaos.counts()).toEqual({
    requests: n,
    reset: decided.filter((d) => d.action === 'reset').length,
    unavailable: decided.filter((d) => d.action === 'unavailable').length,
    delayed: n,
    delay_ms_total: decided.reduce((sum, d) => sum + d.delayMs, 0),
  });
});

test('rates of 0 inject no fault and no delay', () => {
  const chaos = new Chaos({ seed: 'calm', unavailableRate: 0, resetRate: 0 });
  expect(draws(chaos, 10_000).every((d) => d.action === 'forward' && d.delayMs === 0)).toBe(true);
  expect(chaos.counts()).toEqual({ requests: 10_000, reset: 0, unavailable: 0, delayed: 0, delay_ms_total: 0 });
});

test('a rate of 1 faults every request', () => {
  expect(draws(new Chaos({ seed: 'storm', resetRate: 1 }), 1000).every((d) => d.action === 'reset')).toBe(true);
  expect(draws(new Chaos({ seed: 'storm', unavailableRate: 1 }), 1000).every((d) => d.action === 'unavailable')).toBe(true);
});

test('options out of range are refused, naming what is wrong', () => {
  expect(chaosOptionsProblem({ seed: 's', resetRate: 0.5, unavailableRate: 0.5, jitterMs: 0, latencyMs: 0 })).toBeUndefined();
  expect(chaosOptionsProblem({ seed: 's', resetRate: 1.5 })).toMatch(/reset rate must be within 0\.\.1/);
  expect(chaosOptionsProblem({ seed: 's', unavailableRate: -0.1 })).toMatch(/503 rate/);
  expect(chaosOptionsProblem({ seed: 's', unavailableRate: Number.NaN })).toMatch(/503 rate/);
  expect(chaosOptionsProblem({ seed: 's', resetRate: 0.6, unavailableRate: 0.6 })).toMatch(/together/);
  expect(chaosOptionsProblem({ seed: 's', jitterMs: -1 })).toMatch(/jitter/);
  expect(chaosOptionsProblem({ seed: 's', latencyMs: 1.5 })).toMatch(/latency/);
  expect(chaosOptionsProblem({ seed: 's', retryAfterSeconds: -1 })).toMatch(/Retry-After/);
  expect(() => new Chaos({ seed: 's', resetRate: 2 })).toThrow(/chaos: the reset rate/);
});
