// Time as a test sees it, on any target. A simulator's virtual clock is advanced; on any other
// target real time passes, divided by its time scale (1 for a real service). Waiting for the
// target is polling as a user would: fast at first, backing off, up to a deadline taken from
// the target config's `timeouts`. A wait in real time is a step of the test named for what it
// waits for, which the progress line shows while it lasts (reports/progress.ts).
import { test } from '@playwright/test';
import type { Timeouts } from './target.ts';

interface PollOptions {
  /** The longest wait, in the target's ms: a number, or the name of one of the target's timeouts. */
  deadline: keyof Timeouts | number;
  /** The first interval between reads, in the target's ms (default 1 s); it grows by half each time. */
  first?: number;
  /** The longest interval, in the target's ms (default 60 s, the interval the hosted service's docs poll at). */
  max?: number;
  /** What the wait is for, as the progress line names it: "the revision to reach DEPLOYED". */
  what?: string;
}

interface Polled<T> {
  value: T;
  /** Whether `done` accepted the value before the deadline. */
  done: boolean;
  /** The target's ms waited. */
  waited: number;
}

/** The shortest real wait between two reads, whatever the time scale: keeps polls from flooding a target. */
const MIN_WALL_INTERVAL_MS = 50;
/** The title of every step that waits in real time begins so; the progress reporter looks for it. */
export const WAIT_STEP = 'waiting for ';
/** A real wait shorter than this is no step: the progress line is for waits a reader notices. */
const STEP_FROM_WALL_MS = 1_000;

export class Time {
  constructor(
    /** Advances the target's virtual clock; absent when time is real. */
    private readonly advance: ((ms: number) => Promise<void>) | undefined,
    /** How many times faster than the wall clock the target's time runs. */
    readonly scale: number,
    readonly timeouts: Timeouts,
  ) {}

  /** Whether the target's time moves only when the suites move it. */
  get virtual(): boolean {
    return this.advance !== undefined;
  }

  /**
   * The `delay_ms` that keeps a run in progress while a test makes its requests: the target
   * config's hold, a wall time, in the target's time (a run's delay is the target's ms).
   */
  get hold(): number {
    return this.virtual ? 1_500 : Math.round(this.timeouts.hold * this.scale);
  }

  /** Lets `ms` of the target's time pass; `what` names what for, on the progress line. */
  async pass(ms: number, what = "the target's time to pass"): Promise<void> {
    if (this.advance) await this.advance(ms);
    else await this.waiting(what, this.wall(ms), () => sleep(this.wall(ms)));
  }

  /** The wall ms that `ms` of the target's time take, at least `floor`. */
  wall(ms: number, floor = 0): number {
    return Math.max(floor, Math.ceil(ms / this.scale));
  }

  /** Gives the running test the real time its waits may take on this target: the sum of these timeouts. */
  allow(...names: (keyof Timeouts)[]): void {
    this.allowFor(0, ...names);
  }

  /** Gives the running test the real time of `ms` of the target's time and of these timeouts. */
  allowFor(ms: number, ...names: (keyof Timeouts)[]): void {
    if (this.virtual) return;
    this.allowWall(this.wall(ms) + names.reduce((sum, name) => sum + this.wall(this.timeouts[name]), 0));
  }

  /** Gives the running test `ms` more of real time, for a wait it is about to make. */
  allowWall(ms: number): void {
    allowWall(ms);
  }

  /**
   * Reads until `done` accepts what `read` answers or the deadline passes, letting time pass
   * between reads: 1 s at first, growing by half each time up to `max`.
   */
  async poll<T>(read: () => Promise<T>, done: (value: T) => boolean, options: PollOptions): Promise<Polled<T>> {
    const deadline = typeof options.deadline === 'number' ? options.deadline : this.timeouts[options.deadline];
    if (this.advance) return this.polled(read, done, options, deadline);
    return this.waiting(options.what ?? 'the target to answer as awaited', this.wall(deadline), () => this.polled(read, done, options, deadline));
  }

  /**
   * Runs a real wait of up to `wallMs` as a step titled for it ("waiting for revision … to build
   * (real clock ×1, up to 30 min)"), where the progress line can name it.
   */
  waiting<T>(what: string, wallMs: number, body: () => Promise<T>): Promise<T> {
    if (this.virtual || wallMs < STEP_FROM_WALL_MS) return body();
    return test.step(`${WAIT_STEP}${what} (real clock ×${this.scale}, up to ${duration(wallMs)})`, body);
  }

  private async polled<T>(read: () => Promise<T>, done: (value: T) => boolean, options: PollOptions, deadline: number): Promise<Polled<T>> {
    let interval = options.first ?? 1_000;
    const max = options.max ?? 60_000;
    let waited = 0;
    for (;;) {
      const value = await read();
      if (done(value)) return { value, done: true, waited };
      if (waited >= deadline) return { value, done: false, waited };
      const step = Math.min(interval, deadline - waited);
      if (this.advance) await this.advance(step);
      else await sleep(this.wall(step, MIN_WALL_INTERVAL_MS));
      waited += step;
      interval = Math.min(max, Math.ceil(interval * 1.5));
    }
  }
}

function duration(ms: number): string {
  return ms < 120_000 ? `${Math.ceil(ms / 1000)} s` : `${Math.ceil(ms / 60_000)} min`;
}

/** Gives the running test `ms` more of real time (Time.allowWall, for code that has no Time). */
export function allowWall(ms: number): void {
  const info = test.info();
  info.setTimeout(info.timeout + ms);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
