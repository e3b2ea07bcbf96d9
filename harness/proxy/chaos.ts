// The recording proxy's chaos mode, as decisions only (the proxy carries them out): from a seed,
// what happens to each request in arrival order (reset, answered 503, or forwarded after a
// delay), and the counts of what was done. The same seed and the same arrival order give the
// same faults, so that a run that met them can be met again.
import { hashSeed, type RandomState, sfc32 } from '../../specs/seeded-random.ts';

export interface ChaosOptions {
  seed: string;
  /** Share of requests the proxy answers 503 itself, never forwarded (0..1). */
  unavailableRate?: number;
  /** The Retry-After of those 503s, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** Share of requests whose client connection is destroyed before forwarding (0..1). */
  resetRate?: number;
  /** Each forwarded request is delayed by a random 0..jitterMs more. */
  jitterMs?: number;
  /** Every request is delayed by this much (a slow target). */
  latencyMs?: number;
}

export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** What happens to one request, after `delayMs`. */
export interface ChaosDecision {
  action: 'reset' | 'unavailable' | 'forward';
  delayMs: number;
}

/** What the chaos mode did so far (the proxy answers them at /__apc/chaos). */
export interface ChaosCounts {
  requests: number;
  reset: number;
  unavailable: number;
  /** Requests delayed at all (latency or jitter). */
  delayed: number;
  delay_ms_total: number;
}

/** What is wrong with the options, or undefined: rates are shares of the requests, so each is within 0..1, and so is their sum. */
export function chaosOptionsProblem(options: ChaosOptions): string | undefined {
  const { unavailableRate = 0, resetRate = 0, retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS, jitterMs = 0, latencyMs = 0 } = options;
  for (const [name, rate] of [
    ['the 503 rate', unavailableRate],
    ['the reset rate', resetRate],
  ] as const) {
    if (!(rate >= 0 && rate <= 1)) return `${name} must be within 0..1, got ${rate}`;
  }
  if (unavailableRate + resetRate > 1) return `the 503 and reset rates together must not exceed 1, got ${unavailableRate + resetRate}`;
  if (!(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 0)) return `the Retry-After must be a whole number of seconds, got ${retryAfterSeconds}`;
  for (const [name, ms] of [
    ['the jitter', jitterMs],
    ['the latency', latencyMs],
  ] as const) {
    if (!(Number.isInteger(ms) && ms >= 0)) return `${name} must be a whole number of milliseconds, 0 or more, got ${ms}`;
  }
  return undefined;
}

export class Chaos {
  readonly retryAfterSeconds: number;
  private readonly state: RandomState;
  private readonly tally: ChaosCounts = { requests: 0, reset: 0, unavailable: 0, delayed: 0, delay_ms_total: 0 };

  constructor(private readonly options: ChaosOptions) {
    const problem = chaosOptionsProblem(options);
    if (problem) throw new RangeError(`chaos: ${problem}`);
    this.state = hashSeed(options.seed);
    this.retryAfterSeconds = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }

  /** The next request's fate. Two draws each, whatever the outcome: request n's fate depends on the seed and n alone. */
  next(): ChaosDecision {
    const fault = this.draw();
    const jitter = this.draw();
    const { resetRate = 0, unavailableRate = 0, jitterMs = 0, latencyMs = 0 } = this.options;
    // Strictly below: a rate of 0 never matches, even for a draw of 0.
    const action = fault < resetRate ? 'reset' : fault < resetRate + unavailableRate ? 'unavailable' : 'forward';
    // Jitter stands for a slow network on the way to the target, so only a forwarded request meets it.
    const delayMs = latencyMs + (action === 'forward' ? Math.floor(jitter * (jitterMs + 1)) : 0);
    this.tally.requests++;
    if (action === 'reset') this.tally.reset++;
    if (action === 'unavailable') this.tally.unavailable++;
    if (delayMs > 0) {
      this.tally.delayed++;
      this.tally.delay_ms_total += delayMs;
    }
    return { action, delayMs };
  }

  counts(): ChaosCounts {
    return { ...this.tally };
  }

  /** A number in [0, 1). */
  private draw(): number {
    return sfc32(this.state) / 2 ** 32;
  }
}
