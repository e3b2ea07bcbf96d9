// A multipart/form-data body (RFC 7578) read in one pass over its bytes, each part's bytes a
// view of the body's, not a copy. It reads bodies as busboy (the reader it replaces) did: the
// preamble and epilogue are ignored, a part without a form-data Content-Disposition is skipped,
// a malformed part header or a body cut before its closing delimiter is refused, and a text part
// that declares a charset other than UTF-8 is converted to UTF-8.
import { ApiError } from '../http/errors.ts';

export interface FormPart {
  /** The part's name (Content-Disposition's name parameter), '' when it names none. */
  name: string;
  /** Content-Type's type/subtype, lower case; text/plain when the part declares none. */
  mimeType: string;
  data: Buffer;
}

// Node's own limit on a header section, as busboy applied it to each part's.
const MAX_HEADER_BYTES = 16 * 1024;
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QUOTED = '"(?:[^"\\\\\\x00-\\x08\\x0a-\\x1f\\x7f]|\\\\[^\\x00-\\x08\\x0a-\\x1f\\x7f])*"';
const PARAMETER = new RegExp(`[ \\t]*;[ \\t]*(${TOKEN})=(${TOKEN}|${QUOTED})`, 'y');
const TYPE_AND_PARAMETERS = new RegExp(`^(${TOKEN}(?:/${TOKEN})?)((?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*)[ \\t]*$`);
const HEADER_LINE = new RegExp(`^(${TOKEN}):[ \\t]*([\\t\\x20-\\x7e\\x80-\\xff]*)$`);
/** Charsets read one byte per character, as busboy read them. */
const LATIN1 = new Set([
  'latin1',
  'ascii',
  'us-ascii',
  'iso-8859-1',
  'iso8859-1',
  'iso88591',
  'iso_8859-1',
  'windows-1252',
  'iso_8859-1:1987',
  'cp1252',
  'x-cp1252',
]);

const malformed = (message: string) => new ApiError(400, `Malformed multipart body: ${message}`);

/** The parts of `body`, in order, by the boundary that `contentType` names. */
export function formParts(body: Buffer, contentType: string): FormPart[] {
  const boundary = typeAndParameters(contentType)?.params.get('boundary');
  if (!boundary) throw malformed('Boundary not found');
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const found: FormPart[] = [];
  // The first delimiter may open the body, with no CRLF before it.
  let next = body.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? -2 : body.indexOf(delimiter);
  while (next !== -1) {
    const after = next + delimiter.length;
    if (body[after] === 0x2d && body[after + 1] === 0x2d) return found; // the closing delimiter
    const start = after + 2;
    const end = body.indexOf(delimiter, start);
    if (end === -1) break;
    // After a delimiter comes CRLF and a part; anything else is passed over, up to the next one.
    if (body[after] === 0x0d && body[after + 1] === 0x0a) {
      const part = partAt(body, start, end);
      if (part) found.push(part);
    }
    next = end;
  }
  throw malformed('Unexpected end of form');
}

/** The part between `start` (after the delimiter's CRLF) and `end`, or undefined for a part that is not form-data. */
function partAt(body: Buffer, start: number, end: number): FormPart | undefined {
  // The header section ends at the first empty line; it holds one field at least, and ends before the next delimiter.
  const blank = body.indexOf('\r\n\r\n', start - 2);
  if (blank < start || blank + 4 > end || blank + 4 - start > MAX_HEADER_BYTES) throw malformed('Malformed part header');
  const headers = headerSection(body.toString('latin1', start, blank));
  const disposition = dispositionOf(headers.get('content-disposition'));
  if (disposition?.type.toLowerCase() !== 'form-data') return undefined;
  const type = contentTypeOf(headers.get('content-type'));
  const mimeType = type?.type.includes('/') ? type.type.toLowerCase() : 'text/plain';
  const charset = type?.params.get('charset')?.toLowerCase();
  const data = body.subarray(blank + 4, end);
  // A file (a filename, or octet-stream) keeps its bytes; a text part is text in its charset.
  const { params } = disposition;
  const file = mimeType === 'application/octet-stream' || params.has('filename') || params.has('filename*');
  return { name: params.get('name') ?? '', mimeType, data: file || charset === undefined ? data : asUtf8(data, charset) };
}

/** A part's header fields by lower-case name (the first of each), folded lines joined; a line that is no field is refused. */
function headerSection(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  const lines: string[] = [];
  for (const line of text.split('\r\n')) {
    if ((line[0] === ' ' || line[0] === '\t') && lines.length > 0) lines[lines.length - 1] += line;
    else lines.push(line);
  }
  for (const line of lines) {
    const m = HEADER_LINE.exec(line);
    if (!m) throw malformed('Malformed part header');
    const name = m[1].toLowerCase();
    if (!fields.has(name)) fields.set(name, m[2]);
  }
  return fields;
}

type Parsed = { type: string; params: ReadonlyMap<string, string> };

/** The disposition every client writes, `form-data; name="<name>"`, as typeAndParameters reads it; any other by typeAndParameters. */
function dispositionOf(value: string | undefined): Parsed | undefined {
  const open = 'form-data; name="';
  if (value === undefined || !value.startsWith(open) || value.length <= open.length || !value.endsWith('"')) return typeAndParameters(value);
  for (let i = open.length; i < value.length - 1; i++) {
    const c = value.charCodeAt(i);
    // What a quoted string takes as is: no quote, no backslash, no control character but tab.
    if (c === 0x22 || c === 0x5c || c <= 0x08 || (c >= 0x0a && c <= 0x1f) || c === 0x7f) return typeAndParameters(value);
  }
  return { type: 'form-data', params: new Map([['name', value.slice(open.length, -1)]]) };
}

/** Content-Type values read so far: a batch's parts repeat one or two. */
const contentTypes = new Map<string, Parsed | undefined>();
const MAX_CONTENT_TYPES = 64;

function contentTypeOf(value: string | undefined): Parsed | undefined {
  if (value === undefined) return undefined;
  const known = contentTypes.get(value);
  if (known !== undefined || contentTypes.has(value)) return known;
  const parsed = typeAndParameters(value);
  if (contentTypes.size < MAX_CONTENT_TYPES) contentTypes.set(value, parsed);
  return parsed;
}

/** A Content-Type or Content-Disposition value: its type, and its parameters by lower-case name (the first of each), quotes removed. */
function typeAndParameters(value: string | undefined): Parsed | undefined {
  const m = value === undefined ? null : TYPE_AND_PARAMETERS.exec(value);
  if (!m) return undefined;
  const params = new Map<string, string>();
  PARAMETER.lastIndex = m[1].length;
  for (let p = PARAMETER.exec(m[0]); p; p = PARAMETER.exec(m[0])) {
    const name = p[1].toLowerCase();
    const raw = p[2];
    if (!params.has(name)) params.set(name, raw[0] === '"' ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
  }
  return { type: m[1], params };
}

/** A text part's bytes in UTF-8, from the charset it declares. */
function asUtf8(data: Buffer, charset: string): Buffer {
  if (charset === 'utf-8' || charset === 'utf8') return data;
  if (LATIN1.has(charset)) return Buffer.from(data.toString('latin1'), 'utf8');
  try {
    return Buffer.from(new TextDecoder(charset).decode(data), 'utf8');
  } catch {
    throw new ApiError(415, `Unsupported charset '${charset}' in a multipart part: send UTF-8`);
  }
}
