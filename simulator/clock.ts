// The simulator's virtual clock. Time moves only when told to (through the admin
// path), so every timestamp and every delay is the same on every run.

export const DEFAULT_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

export class VirtualClock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(private readonly start: number = DEFAULT_EPOCH) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  iso(): string {
    return new Date(this.current).toISOString();
  }

  /** Schedules `fire` at virtual time `at` (or at once if that time has passed). */
  schedule(at: number, fire: () => void): () => void {
    const timer: Timer = { at, seq: this.seq++, fire };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, firing due timers in time order (ties in scheduling order). */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    const target = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fire();
    }
    this.current = target;
    return this.current;
  }

  reset(): void {
    this.current = this.start;
    this.timers = [];
    this.seq = 0;
  }
}
