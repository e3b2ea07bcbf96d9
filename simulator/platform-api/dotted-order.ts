// dotted_order (spec §2.5): each run contributes a segment, its start timestamp in compact
// form (YYYYMMDDTHHMMSSZ) followed directly by its run UUID; segments are joined with dots,
// parent first. The official clients put a fraction of six digits before the Z
// (langsmith JS client, langsmith-sdk js/src/run_trees.ts): a caller's segments may carry up to six.
// Segments the service computes use the spec's form.
import { isCalendarTime } from './timestamps.ts';

// One segment (TRACE-DOTTED-ORDER-SEGMENT), with up to six fraction digits (TRACE-DOTTED-ORDER-FRACTION).
const SEGMENT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{0,6})Z([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export interface Segment {
  /** The segment's start time to the second, as an ISO string (`YYYY-MM-DDTHH:MM:SSZ`). */
  second: string;
  runId: string;
}

/** The segments of a dotted order, root first, or a sentence saying why it is not one. */
export function parseDottedOrder(value: string): Segment[] | string {
  const segments: Segment[] = [];
  for (const [i, part] of value.split('.').entries()) {
    const segment = parseSegment(part, i + 1);
    if (typeof segment === 'string') return segment;
    segments.push(segment);
  }
  return segments;
}

/** The `position`th segment of a dotted order (1 for the root's), or a sentence saying why it is not one. */
export function parseSegment(part: string, position: number): Segment | string {
  const m = SEGMENT.exec(part);
  if (!m) return `segment ${position} '${part}' is not <YYYYMMDDTHHMMSS[ffffff]Z><run uuid>`;
  const [, y, mo, d, h, mi, s, , runId] = m;
  if (!isCalendarTime(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) return `segment ${position} '${part}' has no valid timestamp`;
  return { second: `${y}-${mo}-${d}T${h}:${mi}:${s}Z`, runId: runId.toLowerCase() };
}

/**
 * The compact segment of a run that started at `normalizedStart` (an ISO string in UTC): the spec's form, or with
 * the first `fractionDigits` of its fraction, as the clients write it.
 */
export function segmentOf(normalizedStart: string, runId: string, fractionDigits = 0): string {
  return `${normalizedStart.slice(0, 19).replace(/[-:]/g, '')}${normalizedStart.slice(20, 20 + fractionDigits)}Z${runId}`;
}

/** The start time of a normalized ISO string, to the second, in the form of Segment.second. */
export function toSecond(normalizedStart: string): string {
  return `${normalizedStart.slice(0, 19)}Z`;
}
