import { expect, test } from '@playwright/test';
import fc from 'fast-check';
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

test("toISOString's form and the normalized one read as the regex's path reads them", () => {
  // A leading space sends a time down the regex's path (it is trimmed there): both paths must agree.
  const years = { min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true };
  fc.assert(
    fc.property(fc.date(years), fc.integer({ min: 0, max: 999 }), fc.boolean(), (date, micros, six) => {
      const iso = date.toISOString();
      const sent = six ? `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z` : iso;
      expect(normalizeTime(sent)).toBe(normalizeTime(` ${sent}`));
    }),
  );
  for (const bad of ['2026-02-29T00:00:00.000Z', '2026-11-22T24:00:00.000Z', '2026-11-22T05:01:51.43100aZ', '0099-12-31T23:59:59.999Z'])
    expect(normalizeTime(bad)).toBeUndefined();
});
