// The body of POST /runs/multipart, as the official client sends it (langsmith
// JS client, langsmith-sdk js/src/client.ts; LangSmith API reference, api.smith.langchain.com/redoc): parts `post.<id>` and `patch.<id>` carry a run, parts
// `post|patch.<id>.<field>` one of its out-of-band fields, `feedback.<id>` a feedback and
// `attachment.<run id>.<name>` raw bytes, applied in order. The whole body may be gzip (or zstd,
// where the runtime has it) encoded and may arrive chunked. Read by form-data.ts; a
// broken body is a 4xx (TRACE-BAD-INPUT), and each run and feedback is checked against its schema in the
// contract, as the server checks a JSON body.
import type { IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';
import { ApiError, unprocessable, type ValidationIssue } from '../http/errors.ts';
import { type FormPart, formParts } from './form-data.ts';
import { schemaIssues } from './trace-run-checks.ts';
import type { IngestOperation } from './trace-runs.ts';

type Json = Record<string, unknown>;

const RUN_FIELD_PARTS = ['inputs', 'outputs', 'events', 'extra', 'error', 'serialized'] as const;

// The part names of the layout (TRACE-MULTIPART-LAYOUT).
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
// A run's part, or with a field's name one of its field parts: one regex for both, the parts most bodies hold.
const RUN_OR_FIELD_PART = new RegExp(`^(post|patch)\\.(${UUID})(?:\\.(${RUN_FIELD_PARTS.join('|')}))?$`);
const FEEDBACK_PART = new RegExp(`^feedback\\.(${UUID})$`);
const ATTACHMENT_PART = new RegExp(`^attachment\\.(${UUID})\\.([^.]+)$`);

// Node 22.15+ has zstd; the official client uses it only where its runtime does too.
const zstdDecompress = (zlib as unknown as { zstdDecompressSync?: (data: Buffer) => Buffer }).zstdDecompressSync;

/** Content encodings this runtime can decode, for /info's instance flags. */
export const SUPPORTS_ZSTD = typeof zstdDecompress === 'function';

/** The operations of a multipart body, in the order of its parts, each run and feedback valid by its schema. */
export async function parseMultipart(raw: Buffer, headers: IncomingHttpHeaders): Promise<IngestOperation[]> {
  const contentType = headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType)) {
    throw new ApiError(415, `Unsupported Content-Type '${contentType || '(none)'}': send multipart/form-data with a boundary`);
  }
  return toOperations(formParts(decode(raw, headers['content-encoding']), contentType));
}

/** The whole body, gzip or zstd decoded (TRACE-MULTIPART-ENCODING). */
function decode(raw: Buffer, encoding: string | undefined): Buffer {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  try {
    if (name === 'identity' || name === '') return raw;
    if (name === 'gzip' || name === 'x-gzip') return zlib.gunzipSync(raw);
    if (name === 'zstd' && zstdDecompress) return zstdDecompress(raw);
  } catch (error) {
    throw new ApiError(400, `The body is not valid ${name} data: ${(error as Error).message}`);
  }
  throw new ApiError(415, `Unsupported Content-Encoding '${name}': send gzip${SUPPORTS_ZSTD ? ', zstd' : ''} or no encoding`);
}

function toOperations(parts: FormPart[]): IngestOperation[] {
  const issues: ValidationIssue[] = [];
  const operations: IngestOperation[] = [];
  const runs = new Map<string, { op: Extract<IngestOperation, { kind: 'post' | 'patch' }>; main: boolean }>();
  const json = (part: FormPart): unknown => {
    try {
      return JSON.parse(part.data.toString('utf8'));
    } catch (error) {
      issues.push({ loc: [part.name], msg: `part is not valid JSON: ${(error as Error).message}`, type: 'json_invalid' });
      return undefined;
    }
  };
  // A run's main part and its field parts may come in any order: they build one operation.
  const runOp = (event: 'post' | 'patch', id: string) => {
    const key = `${event}.${id.toLowerCase()}`;
    let entry = runs.get(key);
    if (!entry) {
      const op = event === 'post' ? { kind: 'post' as const, run: {}, at: [key] } : { kind: 'patch' as const, id: id.toLowerCase(), run: {}, at: [key] };
      entry = { op, main: false };
      runs.set(key, entry);
      operations.push(op);
    }
    return entry;
  };
  for (const part of parts) {
    const ofRun = RUN_OR_FIELD_PART.exec(part.name);
    let m: RegExpExecArray | null;
    if (ofRun && ofRun[3] === undefined) {
      const value = json(part);
      if (value === undefined) continue;
      // A run part holds a TraceRun, the object its field parts complete.
      const refused = schemaIssues('TraceRun', value, [part.name]);
      if (refused.length > 0) {
        issues.push(...refused);
        continue;
      }
      const entry = runOp(ofRun[1] as 'post' | 'patch', ofRun[2]);
      entry.main = true;
      entry.op.run = { ...(value as Json), ...entry.op.run, id: (value as Json).id ?? ofRun[2] };
    } else if (ofRun) {
      const value = json(part);
      if (value !== undefined) runOp(ofRun[1] as 'post' | 'patch', ofRun[2]).op.run[ofRun[3]] = value;
    } else if ((m = FEEDBACK_PART.exec(part.name))) {
      const value = json(part);
      if (value === undefined) continue;
      const feedback =
        typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...(value as Json), id: (value as Json).id ?? m[1] } : (value as Json);
      issues.push(...schemaIssues('Feedback', feedback, [part.name]));
      operations.push({ kind: 'feedback', feedback, at: [part.name] });
    } else if ((m = ATTACHMENT_PART.exec(part.name))) {
      // Copied: the part is a view of the whole body, which the store must not hold on to.
      operations.push({
        kind: 'attachment',
        runId: m[1].toLowerCase(),
        name: m[2],
        attachment: { mimeType: part.mimeType, data: Buffer.from(part.data) },
        at: [part.name],
      });
    } else {
      issues.push({
        loc: [part.name],
        msg: 'unknown part name: expected post.<id>, patch.<id>, post|patch.<id>.<inputs|outputs|events|extra|error|serialized>, feedback.<id> or attachment.<run id>.<name>',
        type: 'value_error',
      });
    }
  }
  for (const [key, entry] of runs) {
    if (!entry.main) issues.push({ loc: [key], msg: `field parts for ${key} without the part ${key} itself`, type: 'missing' });
    // The run with its field parts (an extra part must hold an object, as any extra).
    else issues.push(...schemaIssues('TraceRun', entry.op.run, entry.op.at));
  }
  if (issues.length > 0) throw unprocessable(`Invalid multipart body: ${issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, issues);
  return operations;
}
