import { expect, test } from '@playwright/test';
import { DEFAULT_EPOCH, RealClock, VirtualClock } from './clock.ts';
import { IdGenerator } from './ids.ts';

test('the clock moves only when advanced, firing due timers in time order', () => {
  const clock = new VirtualClock();
  const fired: string[] = [];
  clock.schedule(DEFAULT_EPOCH + 2000, () => fired.push(`b@${clock.now() - DEFAULT_EPOCH}`));
  clock.schedule(DEFAULT_EPOCH + 1000, () => fired.push(`a@${clock.now() - DEFAULT_EPOCH}`));
  const cancel = clock.schedule(DEFAULT_EPOCH + 1500, () => fired.push('cancelled'));
  cancel();
  expect(clock.now()).toBe(DEFAULT_EPOCH);
  clock.advance(1000);
  expect(fired).toEqual(['a@1000']);
  clock.advance(5000);
  expect(fired).toEqual(['a@1000', 'b@2000']);
  expect(clock.now()).toBe(DEFAULT_EPOCH + 6000);
  expect(() => clock.advance(-1)).toThrow(RangeError);
});

test('a timer scheduled by a timer fires within the same advance when due', () => {
  const clock = new VirtualClock();
  const fired: number[] = [];
  clock.schedule(DEFAULT_EPOCH + 10, () => clock.schedule(clock.now() + 10, () => fired.push(clock.now() - DEFAULT_EPOCH)));
  clock.advance(100);
  expect(fired).toEqual([20]);
});

test('the real clock follows the wall clock, scaled, and fires its timers by itself in time order', async () => {
  const clock = new RealClock({ scale: 1000, epoch: DEFAULT_EPOCH });
  const fired: string[] = [];
  const done = new Promise<void>((resolve) => {
    clock.schedule(DEFAULT_EPOCH + 20_000, () => {
      fired.push(`b after ${clock.now() - DEFAULT_EPOCH >= 20_000 ? 'its time' : 'too early'}`);
      resolve();
    });
  });
  clock.schedule(DEFAULT_EPOCH + 10_000, () => fired.push('a'));
  const cancel = clock.schedule(DEFAULT_EPOCH + 15_000, () => fired.push('cancelled'));
  cancel();
  clock.schedule(DEFAULT_EPOCH - 5, () => fired.push('overdue'));
  await done;
  expect(fired).toEqual(['overdue', 'a', 'b after its time']);
  expect(clock.iso() > new Date(DEFAULT_EPOCH + 20_000).toISOString()).toBe(true);
});

test('resetting the real clock forgets its timers and starts its time over', async () => {
  const clock = new RealClock({ scale: 1000, epoch: DEFAULT_EPOCH });
  let fired = false;
  clock.schedule(DEFAULT_EPOCH + 1_000, () => (fired = true));
  clock.reset();
  const after = new Promise<void>((resolve) => clock.schedule(clock.now() + 5_000, resolve));
  await after;
  expect(fired).toBe(false);
  expect(() => new RealClock({ scale: 0 })).toThrow(RangeError);
});

test('a rescaled real clock goes on from where it was, and its pending timers fire at the new pace', async () => {
  const clock = new RealClock({ scale: 1, epoch: DEFAULT_EPOCH });
  // At scale 1 this timer is 60 s away; at 60,000 it is a millisecond.
  const fired = new Promise<number>((resolve) => clock.schedule(DEFAULT_EPOCH + 60_000, () => resolve(clock.now())));
  const before = clock.now();
  clock.rescale(60_000);
  expect(clock.scale).toBe(60_000);
  expect(clock.now()).toBeGreaterThanOrEqual(before);
  expect(await fired).toBeGreaterThanOrEqual(DEFAULT_EPOCH + 60_000);
  expect(() => clock.rescale(-1)).toThrow(RangeError);
});

test('the same seed gives the same ids; another seed others; reseeding starts over', () => {
  const a = new IdGenerator('seed');
  const b = new IdGenerator('seed');
  const first = [a.uuid(), a.uuid(), a.uuid()];
  expect([b.uuid(), b.uuid(), b.uuid()]).toEqual(first);
  expect(new IdGenerator('other').uuid()).not.toBe(first[0]);
  a.reseed();
  expect(a.uuid()).toBe(first[0]);
  for (const id of first) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
