import { expect, test } from '@playwright/test';
import { parseDottedOrder, segmentOf } from './dotted-order.ts';
import { normalizeTime } from './timestamps.ts';

const ROOT = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
const CHILD = '01a201a1-cfc8-7000-8000-0208cb5d3b7f';

test("segments in the compact form and with the clients' fraction are both read", () => {
  expect(parseDottedOrder(`20261122T050151Z${ROOT}.20261122T050151431002Z${CHILD}`)).toEqual([
    { second: '2026-11-22T05:01:51Z', runId: ROOT },
    { second: '2026-11-22T05:01:51Z', runId: CHILD },
  ]);
});

test('a segment without a valid timestamp or uuid is refused with a reason', () => {
  expect(parseDottedOrder(`${ROOT}20261122T050151Z`)).toMatch(/segment 1/);
  expect(parseDottedOrder(`20261322T050151Z${ROOT}`)).toMatch(/no valid timestamp/);
  expect(parseDottedOrder(`20261122T050151Z${ROOT}.`)).toMatch(/segment 2/);
  expect(parseDottedOrder(`20261122T050151.123Z${ROOT}`)).toMatch(/segment/);
});

test("the service computes segments in the spec's compact form", () => {
  expect(segmentOf(normalizeTime('2026-11-22T05:01:51.431Z')!, ROOT)).toBe(`20261122T050151Z${ROOT}`);
});

test("a segment in the clients' form keeps the fraction digits asked for", () => {
  expect(segmentOf(normalizeTime('2026-11-22T05:01:51.431Z')!, ROOT, 6)).toBe(`20261122T050151431000Z${ROOT}`);
  expect(segmentOf(normalizeTime('2026-11-22T05:01:51.431Z')!, ROOT, 3)).toBe(`20261122T050151431Z${ROOT}`);
});
