// A trend reads the medians of its end windows: a GC's saw with no lift is flat however its
// instants fall, a lifted saw is growth, and the slope is per hour between the windows' middles.
import { expect, test } from '@playwright/test';
import { attribute, median, type Sample, trend } from './trend.ts';

const MiB = 1024 * 1024;
/** A sample every 5 s for `minutes`, sawing between 100 and 125 MiB every 30 s, lifted by `lift` MiB a minute. */
function saw(minutes: number, lift: number): Sample[] {
  return Array.from({ length: (minutes * 60) / 5 }, (_, i) => {
    const at = i * 5000;
    return { at, rss: (100 + 25 * ((at % 30_000) / 30_000) + (lift * at) / 60_000) * MiB };
  });
}

test('median of an odd and an even count', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

test('a saw with no lift is flat, though its instants differ by a quarter', () => {
  const samples = saw(20, 0);
  const t = trend(samples, 60_000);
  expect(Math.abs(t.growth)).toBeLessThan(0.02);
  expect(Math.abs(t.perHour)).toBeLessThan(5 * MiB);
});

test('a lifted saw grows, and its slope is the lift per hour', () => {
  const t = trend(saw(20, 1), 60_000);
  expect(t.growth).toBeGreaterThan(0.1);
  // 1 MiB a minute is 60 MiB an hour, give or take where the saw's teeth fall in each window.
  expect(t.perHour / MiB).toBeGreaterThan(55);
  expect(t.perHour / MiB).toBeLessThan(65);
});

test('growth is told apart: what the run records in bursts, and what grows with time alone', () => {
  // Bursts of recording (100 exchanges a minute) every other 5 minutes, waits between them.
  const exchangesAt = (at: number) => {
    const minute = at / 60_000;
    const bursts = Math.floor(minute / 10) * 5 + Math.min(5, minute % 10);
    return Math.round(bursts * 100);
  };
  const withRecords = (lift: number) => saw(40, lift).map((s) => ({ ...s, rss: s.rss + (12 * MiB * exchangesAt(s.at)) / 1000 }));
  const recordsOnly = attribute(withRecords(0), exchangesAt);
  expect(recordsOnly.perThousandExchanges / MiB).toBeGreaterThan(10);
  expect(recordsOnly.perThousandExchanges / MiB).toBeLessThan(14);
  expect(Math.abs(recordsOnly.perHour / MiB)).toBeLessThan(10);
  const leak = attribute(withRecords(1), exchangesAt);
  expect(leak.perHour / MiB).toBeGreaterThan(50);
  expect(leak.perHour / MiB).toBeLessThan(70);
});
