// Run times arrive as epoch milliseconds or as ISO 8601 strings with 0 to 6 fraction digits (TRACE-TIME-FORMATS),
// with or without a zone (langsmith JS client, langsmith-sdk js/src/run_trees.ts). They are kept as UTC ISO strings
// with six fraction digits, so no microsecond a client sent is lost.

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A normalized time, or undefined when `value` is neither form. */
export function normalizeTime(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    const ms = Math.floor(value);
    const micros = Math.min(999, Math.round((value - ms) * 1000));
    return fromParts(ms, micros);
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = m;
  const digits = fraction.padEnd(6, '0');
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(digits.slice(0, 3)));
  // Date.UTC rolls impossible dates over (Feb 30 becomes Mar 2): refuse them instead.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) return undefined;
  if (zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const [zh, zm] = [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
    if (zh > 23 || zm > 59) return undefined;
    ms -= sign * (zh * 60 + zm) * 60_000;
  }
  return fromParts(ms, Number(digits.slice(3, 6)));
}

function fromParts(ms: number, micros: number): string | undefined {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return undefined;
  return `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** Epoch milliseconds of a normalized time. */
export function epochMs(normalized: string): number {
  return Date.parse(`${normalized.slice(0, 23)}Z`);
}
