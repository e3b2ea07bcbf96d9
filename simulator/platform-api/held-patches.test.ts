import { expect, test } from '@playwright/test';
import { HeldPatches } from './held-patches.ts';

test('a held patch waits its bound, then is dropped; the hold refuses what does not fit', () => {
  const held = new HeldPatches({ holdMs: 1000, maxHeld: 2 });
  held.hold('a', { outputs: { n: 1 } }, 0);
  held.hold('a', { outputs: { n: 2 } }, 10);
  expect(held.peek('a', 500).map((p) => p.run)).toEqual([{ outputs: { n: 1 } }, { outputs: { n: 2 } }]);
  expect(held.fits(1, 500)).toBe(false);
  // At 1005 the first has waited longer than its bound: dropped, which frees a place.
  expect(held.fits(1, 1005)).toBe(true);
  expect(held.size).toBe(1);
  expect(held.peek('a', 1005).map((p) => p.run)).toEqual([{ outputs: { n: 2 } }]);
  held.drop('a');
  expect([held.size, held.peek('a', 1005)]).toEqual([0, []]);
});
