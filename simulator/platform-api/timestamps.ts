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
  const canonical = canonicalTime(value);
  if (canonical !== undefined) return canonical;
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

/**
 * A time in toISOString's form or the normalized one, the forms clients send most (two in each run of
 * a batch): read without the regex or a Date, to the same result. Undefined for any other form.
 */
function canonicalTime(value: string): string | undefined {
  const fraction = value.length - 24;
  // Years before 100 are left to the regex's path, which Date.UTC reads as 19xx and so refuses.
  if ((fraction !== 0 && fraction !== 3) || value.charCodeAt(value.length - 1) !== 0x5a /* Z */ || value.startsWith('00')) return undefined;
  for (let i = 0; i < value.length - 1; i++) {
    const separator = CANONICAL_SEPARATORS[i];
    if (separator === undefined ? !isDigit(value.charCodeAt(i)) : value[i] !== separator) return undefined;
  }
  if (
    !isCalendarTime(
      numberAt(value, 0, 4),
      numberAt(value, 5, 7),
      numberAt(value, 8, 10),
      numberAt(value, 11, 13),
      numberAt(value, 14, 16),
      numberAt(value, 17, 19),
    )
  )
    return undefined;
  return fraction === 0 ? `${value.slice(0, 23)}000Z` : value;
}

/** The separators of YYYY-MM-DDTHH:MM:SS.ffffff by position; the other positions hold digits. */
const CANONICAL_SEPARATORS: Record<number, string> = { 4: '-', 7: '-', 10: 'T', 13: ':', 16: ':', 19: '.' };

// Functions, not closures made per call: tsx names each closure when it is made (keepNames), at a cost each time.
function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function numberAt(value: string, from: number, to: number): number {
  return Number(value.slice(from, to));
}

/**
 * Whether the fields name a moment of the (proleptic Gregorian) calendar, as a Date's round trip
 * tells: no February 30th, no hour 24, no leap second.
 */
export function isCalendarTime(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31);
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
