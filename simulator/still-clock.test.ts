// A wait on a virtual clock that nobody moves is told once; one whose clock moved, or that ended,
// or on the real clock, is not.
import { expect, test } from '@playwright/test';
import { RealClock, VirtualClock } from './clock.ts';
import { createLog } from './log.ts';
import { StillClockWatch } from './still-clock.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 80));

function watched(clock: VirtualClock | RealClock) {
  const lines: string[] = [];
  const log = createLog('warn', { stdout: () => {}, stderr: (line) => lines.push(line) });
  return { lines, watch: new StillClockWatch(clock, log, 20) };
}

test('a wait on a virtual clock that did not move is told once, naming what waits', async () => {
  const { lines, watch } = watched(new VirtualClock());
  watch.watch('A join of run r1', new Promise(() => {}));
  watch.watch('A join of run r2', new Promise(() => {}));
  await settle();
  expect(lines).toEqual([expect.stringMatching(/^\[simulator\] warn: A join of run r1 has waited 0 s for the virtual clock, which has not moved: advance it/)]);
});

test('a wait whose clock moved, one that ended, and one on the real clock are not told', async () => {
  const clock = new VirtualClock();
  const { lines, watch } = watched(clock);
  watch.watch('moved', new Promise(() => {}));
  clock.advance(1);
  watch.watch('ended', Promise.resolve());
  const real = watched(new RealClock());
  real.watch.watch('real', new Promise(() => {}));
  await settle();
  expect([...lines, ...real.lines]).toEqual([]);
});
