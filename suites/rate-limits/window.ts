// Rate-limit windows as the rate-limit suites see them, on any target. On a simulator's virtual
// clock (its counters reset before each test) every check is exact: requests share an instant,
// and a window passes to the millisecond. In real time a check is bounded: the requests that
// must share a window are timed, and when they took too long to share one, the check is tried
// again with callers of its own (fresh windows), and after three tries skipped as one this machine
// could not make, never failed nor passed; a window passes by waiting it out.
import { skipForMachine } from '../../harness/checks/attribution.ts';
import { requireCapability, requireEffect, test } from '../../harness/fixtures.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { sleep, type Time } from '../../harness/time.ts';

/**
 * Requests that must share a window may take at most this share of it, in real time: timed
 * from before the first is sent to after the last is answered, they surely fit when it is 1;
 * the rest is margin.
 */
const SHARE_OF_WINDOW = 0.9;
/** Real time a window may be waited out for; longer windows leave the recovery unchecked (RATE-RECOVERY checks it on a 10 s row). */
const MAX_WALL_WAIT_MS = 5_000;
/** Added to a real wait, so that the target's window has surely rolled. */
const MARGIN_MS = 250;
/** Tries of a check whose requests must share windows, before it is skipped. */
const TRIES = 3;

/** Requests that took too long to share a window (real time only): the check is tried again. */
class WindowMissed extends Error {}

/**
 * Skips a rate-limit test where it cannot run: on a virtual clock the counters must be
 * reset before each test (rate-limit-reset); in real time the test spends the target's real
 * quota of the rows it fills, which the run's profile must allow.
 */
export function requireRateLimitTraffic(conformanceRun: ConformanceRun): void {
  if (conformanceRun.target.capabilities.includes('virtual-clock')) requireCapability(conformanceRun, 'rate-limit-reset');
  else requireEffect(conformanceRun, 'rate-limit-probe', 'rate-limit checks send hundreds to thousands of requests to the target');
}

export class RateWindow {
  private started = performance.now();

  constructor(private readonly time: Time) {}

  get exact(): boolean {
    return this.time.virtual;
  }

  /** Starts timing requests that must share one window. */
  restart(): void {
    this.started = performance.now();
  }

  /**
   * In real time, ends the try of the check (inFreshWindows) when the requests since `restart`
   * took more than most of a window of `seconds`: they may not all have been counted in one window.
   */
  mustShare(seconds: number, what: string): void {
    if (this.time.virtual) return;
    const elapsed = performance.now() - this.started;
    const window = (seconds * 1000) / this.time.scale;
    if (elapsed > window * SHARE_OF_WINDOW) {
      throw new WindowMissed(
        `${what} took ${Math.round(elapsed)} ms, more than ${Math.round(SHARE_OF_WINDOW * 100)}% of one ${seconds} s window ` +
          `(${Math.round(window)} ms of real time at time scale ${this.time.scale}): they may not have shared a window`,
      );
    }
  }

  /** The target's ms since `restart`: none on a virtual clock, where the requests share an instant. */
  elapsed(): number {
    return this.time.virtual ? 0 : Math.ceil((performance.now() - this.started) * this.time.scale);
  }

  /** Whether a window of `seconds` can be waited out here (always on a virtual clock). */
  canPass(seconds: number): boolean {
    return this.time.virtual || (seconds * 1000) / this.time.scale <= MAX_WALL_WAIT_MS;
  }

  /** Lets a window of `seconds` pass since the last request: exactly on a virtual clock, with a margin in real time. */
  async pass(seconds: number): Promise<void> {
    if (this.time.virtual) await this.time.pass(seconds * 1000);
    else await sleep(this.time.wall(seconds * 1000) + MARGIN_MS);
    this.restart();
  }

  /** Lets `ms` pass on a virtual clock; nothing in real time, where only whole windows are waited out. */
  async advanceExactly(ms: number): Promise<void> {
    if (this.time.virtual) await this.time.pass(ms);
  }

  /** Notes in the report a part of a check this run cannot make (in real time, or with the keys the target knows). */
  note(what: string): void {
    test.info().annotations.push({ type: 'not checked', description: what });
  }
}

/**
 * Runs a check whose requests must share windows (RateWindow.mustShare) until they did: each try
 * with callers of its own (the test key it is given, which the callers' keys, user ids and addresses
 * derive from), so that it starts on fresh windows, and with the time the last try took. After
 * three tries the test is skipped as one this machine could not make. On a virtual clock the first
 * try is the only one.
 */
export async function inFreshWindows(time: Time, testKey: string, check: (window: RateWindow, testKey: string) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    try {
      await check(new RateWindow(time), attempt === 1 ? testKey : `${testKey}-try${attempt}`);
      return;
    } catch (error) {
      if (!(error instanceof WindowMissed)) throw error;
      skipForMachine(attempt === TRIES, `${error.message}, in each of ${TRIES} tries`);
      test.info().annotations.push({ type: 'rate-limit window missed', description: `try ${attempt} of ${TRIES}: ${error.message}` });
      time.allowWall(performance.now() - started);
    }
  }
}
