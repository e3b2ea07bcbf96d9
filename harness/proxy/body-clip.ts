// What a recording keeps of a body: its first bytes and its size. The proxy keeps no more than
// this of a request body or an event stream, however long either is.
import { type Redaction, redactCutText } from './redact.ts';

/** Largest body kept in a recording; longer ones are cut (and say so). */
const MAX_RECORDED_BODY = 256 * 1024;

export class BodyClip {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  /** Bytes seen in all. */
  size = 0;

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.keptBytes >= MAX_RECORDED_BODY) return;
    const part = chunk.subarray(0, MAX_RECORDED_BODY - this.keptBytes);
    this.kept.push(part);
    this.keptBytes += part.length;
  }

  /** The body as recorded: redacted, and cut with a note when it was longer than the recording keeps. */
  recorded(contentType: string | undefined, redaction: Redaction): string | undefined {
    if (this.size === 0) return undefined;
    const text = Buffer.concat(this.kept).toString('utf8');
    const cut = this.size - this.keptBytes;
    // A cut JSON body no longer parses: it is redacted by pattern instead.
    return cut > 0 ? `${redaction.text(redactCutText(text))}… [${cut} more bytes not recorded]` : redaction.body(text, contentType);
  }
}

/** A whole body's recorded text, cut as a BodyClip cuts it. */
export function clip(text: string): string {
  if (Buffer.byteLength(text) <= MAX_RECORDED_BODY) return text;
  const bytes = Buffer.from(text, 'utf8');
  return `${bytes.subarray(0, MAX_RECORDED_BODY).toString('utf8')}… [${bytes.length - MAX_RECORDED_BODY} more bytes not recorded]`;
}
