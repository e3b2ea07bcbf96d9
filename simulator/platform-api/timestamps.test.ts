import { expect, test } from '@playwright/test';
import { epochMs, normalizeTime } from './timestamps.ts';

test('times arrive as epoch ms or ISO with 0 to 6 fraction digits and keep their microseconds', () => {
  expect(normalizeTime(1795323711464)).toBe('2026-11-22T05:01:51.464000Z');
  expect(normalizeTime('2026-11-22T05:01:51Z')).toBe('2026-11-22T05:01:51.000000Z');
  expect(normalizeTime('2026-11-22T05:01:51.4Z')).toBe('2026-11-22T05:01:51.400000Z');
  expect(normalizeTime('2026-11-22T05:01:51.431001Z')).toBe('2026-11-22T05:01:51.431001Z');
  expect(normalizeTime('2026-11-22T07:01:51.5+02:00')).toBe('2026-11-22T05:01:51.500000Z');
  expect(normalizeTime('2026-11-22T05:01:51')).toBe('2026-11-22T05:01:51.000000Z');
  for (const bad of ['yesterday', '2026-02-30T00:00:00Z', '2026-11-22T25:00:00Z', Number.NaN, null, {}]) expect(normalizeTime(bad)).toBeUndefined();
});

test('epochMs reads a normalized time back to the millisecond', () => {
  expect(epochMs('2026-11-22T05:01:51.431001Z')).toBe(Date.parse('2026-11-22T05:01:51.431Z'));
});
