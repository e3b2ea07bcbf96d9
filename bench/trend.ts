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
