// The simulator's clocks. Every timestamp and every delay of the simulator (runs, revision
// builds, crons, webhook retries, upload statistics, rate-limit windows) reads one Clock:
// - VirtualClock: time moves only when told to (the admin path), so every timestamp and
//   every delay is the same on every run;
// - RealClock: time follows the wall clock, scaled, so that a harness sees what it would see
//   on a hosted service, only faster (a 90 s build takes 1.5 s at scale 60).

export const DEFAULT_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

export interface Clock {
  readonly kind: 'virtual' | 'real';
  /** Simulated time in ms since the epoch. */
  now(): number;
  iso(): string;
  /** Schedules `fire` at simulated time `at` (as soon as possible if that time has passed); answers a cancel. */
  schedule(at: number, fire: () => void): () => void;
  /** Forgets every timer and starts time over, at `at` if given (a snapshot's time). */
  reset(at?: number): void;
}

let lastIso = { at: Number.NaN, text: '' };

/** A time as ISO text, the last one kept: requests read the clock many times at one ms (the virtual clock stands still between advances). */
function isoAt(ms: number): string {
  if (ms !== lastIso.at) lastIso = { at: ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** Timers in firing order: by time, ties in scheduling order. */
class TimerQueue {
  private timers: Timer[] = [];
  private seq = 0;

  add(at: number, fire: () => void): Timer {
    const timer = { at, seq: this.seq++, fire };
    this.timers.push(timer);
    return timer;
  }

  remove(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
  }

  /** The next timer due at or before `at`, removed from the queue. */
  takeDue(at: number): Timer | undefined {
    let due: Timer | undefined;
    for (const t of this.timers) if (t.at <= at && (!due || t.at < due.at || (t.at === due.at && t.seq < due.seq))) due = t;
    if (due) this.remove(due);
    return due;
  }

  earliest(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  clear(): void {
    this.timers = [];
    this.seq = 0;
  }
}

export class VirtualClock implements Clock {
  readonly kind = 'virtual';
  private current: number;
  private readonly queue = new TimerQueue();

  constructor(private readonly start: number = DEFAULT_EPOCH) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  iso(): string {
    return isoAt(this.current);
  }

  schedule(at: number, fire: () => void): () => void {
    const timer = this.queue.add(at, fire);
    return () => this.queue.remove(timer);
  }

  /** Moves time forward, firing due timers in time order (ties in scheduling order). */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    const target = this.current + ms;
    for (let due = this.queue.takeDue(target); due; due = this.queue.takeDue(target)) {
      this.current = Math.max(this.current, due.at);
      due.fire();
    }
    this.current = target;
    return this.current;
  }

  reset(at: number = this.start): void {
    this.current = at;
    this.queue.clear();
  }
}

interface RealClockOptions {
  /** How many times faster than the wall clock simulated time runs (default 1). */
  scale?: number;
  /** Simulated time at start; default the wall clock's time at start. */
  epoch?: number;
}

export class RealClock implements Clock {
  readonly kind = 'real';
  private current: number;
  private epoch!: number;
  private startedAt!: number;
  private readonly queue = new TimerQueue();
  private armed?: { at: number; handle: NodeJS.Timeout };

  constructor(private readonly options: RealClockOptions = {}) {
    this.current = checkedScale(options.scale ?? 1);
    this.restart();
  }

  /** How many times faster than the wall clock simulated time runs. */
  get scale(): number {
    return this.current;
  }

  /** Runs `scale` times faster from now on: simulated time goes on from where it is, and pending timers fire at their simulated times. */
  rescale(scale: number): void {
    const at = this.now();
    this.current = checkedScale(scale);
    this.restart(at);
    if (this.armed) clearTimeout(this.armed.handle);
    this.armed = undefined;
    this.arm();
  }

  now(): number {
    return Math.floor(this.epoch + (performance.now() - this.startedAt) * this.current);
  }

  iso(): string {
    return isoAt(this.now());
  }

  schedule(at: number, fire: () => void): () => void {
    const timer = this.queue.add(at, fire);
    this.arm();
    return () => {
      this.queue.remove(timer);
      this.arm();
    };
  }

  reset(at?: number): void {
    this.queue.clear();
    this.arm();
    this.restart(at);
  }

  private restart(at?: number): void {
    this.epoch = at ?? this.options.epoch ?? Date.now();
    this.startedAt = performance.now();
  }

  /** Keeps one wall-clock timer set for the earliest simulated timer. */
  private arm(): void {
    const earliest = this.queue.earliest();
    if (this.armed && this.armed.at === earliest) return;
    if (this.armed) clearTimeout(this.armed.handle);
    this.armed = undefined;
    if (earliest === undefined) return;
    const wait = Math.max(0, Math.ceil((earliest - this.now()) / this.scale));
    const handle = setTimeout(() => {
      this.armed = undefined;
      this.fireDue();
    }, wait);
    // Pending simulated timers never keep a process alive on their own.
    handle.unref();
    this.armed = { at: earliest, handle };
  }

  private fireDue(): void {
    const now = this.now();
    for (let due = this.queue.takeDue(now); due; due = this.queue.takeDue(now)) due.fire();
    this.arm();
  }
}

function checkedScale(scale: number): number {
  if (!Number.isFinite(scale) || scale <= 0) throw new RangeError(`the time scale must be a positive number, got ${scale}`);
  return scale;
}
