// A request that waits for a run on the virtual clock (join, wait) answers only once the clock is
// moved past the run's end. A client developer who forgot that the clock is virtual sees a request
// that never answers: when such a wait has lasted STILL_MS of real time and the clock has not moved
// since it began, the simulator says once what waits and how to move the clock.
import type { Clock } from './clock.ts';
import type { Log } from './log.ts';

/** Real ms a wait on a virtual clock that did not move lasts before it is told. */
export const STILL_MS = 5_000;

export class StillClockWatch {
  private told = false;

  constructor(
    private readonly clock: Clock,
    private readonly log: Log | undefined,
    private readonly stillMs = STILL_MS,
  ) {}

  /** Watches `what`, a wait that ends when `ended` settles: told once, if the clock has not moved by then. */
  watch(what: string, ended: Promise<unknown>): void {
    if (this.clock.kind !== 'virtual' || this.told || !this.log?.shows('warn')) return;
    const at = this.clock.now();
    let over = false;
    void ended.finally(() => (over = true));
    // The wait itself keeps the process running (its socket): this timer never does.
    setTimeout(() => {
      if (over || this.told || this.clock.now() !== at) return;
      this.told = true;
      this.log?.warn(
        `${what} has waited ${Math.round(this.stillMs / 1000)} s for the virtual clock, which has not moved: ` +
          "advance it (advanceClock({ ms }), or POST /__sim/clock/advance) past the run's end, or start the simulator " +
          "on the real clock (clock: 'real', simulate --clock real), where time moves by itself",
      );
    }, this.stillMs).unref();
  }
}
