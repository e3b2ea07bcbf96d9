// A process's memory trend from its RSS samples. Single samples would not do: the heap saws up and
// down by a fifth between major GCs, so two instants can differ by 25% with no leak at all, while a
// leak lifts the whole saw. So a trend compares the median of a window at each end.

/** One RSS sample, `at` ms after the measurement began. */
export interface Sample {
  at: number;
  rss: number;
}

export interface Trend {
  /** Medians of the first and last windows, in bytes. */
  start: number;
  end: number;
  /** (end − start) / start. */
  growth: number;
  /** The windows' middles (ms, as the samples' `at`). */
  from: number;
  to: number;
  /** Bytes per hour, between the windows' middles. */
  perHour: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The trend between the first and the last `windowMs` of `samples` (in time order). */
export function trend(samples: Sample[], windowMs: number): Trend {
  const first = samples.filter((s) => s.at < samples[0]!.at + windowMs);
  const last = samples.filter((s) => s.at > samples.at(-1)!.at - windowMs);
  const start = median(first.map((s) => s.rss));
  const end = median(last.map((s) => s.rss));
  const from = median(first.map((s) => s.at));
  const to = median(last.map((s) => s.at));
  const hours = (to - from) / 3_600_000;
  return { start, end, growth: (end - start) / start, from, to, perHour: hours > 0 ? (end - start) / hours : 0 };
}

/** What a process's growth comes from: time, and what the run recorded meanwhile. */
export interface Attribution {
  /** Bytes per hour with the recordings held fixed: what grows with time alone. */
  perHour: number;
  /** Bytes per 1,000 exchanges recorded, at a fixed time: what the run keeps of its own data. */
  perThousandExchanges: number;
}

/**
 * Least squares of rss = a + b·hours + c·(thousands of exchanges) over the samples, `exchangesAt`
 * giving the exchanges recorded by each sample's time. A run records in bursts and waits between
 * them, so the two are told apart: growth with time alone is what lasts over a session of hours,
 * while what the run keeps per exchange is bounded by its tests.
 */
export function attribute(samples: Sample[], exchangesAt: (at: number) => number): Attribution {
  const rows = samples.map((s) => [1, s.at / 3_600_000, exchangesAt(s.at) / 1000]);
  // The normal equations (XᵀX)β = Xᵀy, solved by Cramer's rule: three unknowns.
  const xtx = [0, 1, 2].map((i) => [0, 1, 2].map((j) => rows.reduce((sum, r) => sum + r[i]! * r[j]!, 0)));
  const xty = [0, 1, 2].map((i) => rows.reduce((sum, r, k) => sum + r[i]! * samples[k]!.rss, 0));
  const det = (m: number[][]) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!);
  const whole = det(xtx);
  // Recordings that never changed (or moved in step with time) cannot be told apart: all is time's.
  if (Math.abs(whole) < 1e-9) return { perHour: trend(samples, Math.max(1, (samples.at(-1)!.at - samples[0]!.at) / 4)).perHour, perThousandExchanges: 0 };
  const solve = (column: number) => det(xtx.map((row, i) => row.map((value, j) => (j === column ? xty[i]! : value)))) / whole;
  return { perHour: solve(1), perThousandExchanges: solve(2) };
}
