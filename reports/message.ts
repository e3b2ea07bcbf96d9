// A failure message as the console, the GitHub annotations and JUnit show it: whole, line breaks
// kept, so that `POST /threads answered 200 {` is followed by the body it names. Only a message
// longer than a CI log line can sensibly hold is cut, with a marker saying how much was cut and
// where the whole of it is.

/** A few KB: an answer's body and the assertion's diff fit; a whole event stream does not. */
export const MAX_MESSAGE = 4000;

/** `text` without trailing blanks, cut after `max` characters (at a line end when one is near) with a visible marker. */
export function wholeMessage(text: string, max = MAX_MESSAGE): string {
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.length <= max) return trimmed;
  const lineEnd = trimmed.lastIndexOf('\n', max);
  const cut = lineEnd > max * 0.8 ? lineEnd : max;
  return `${trimmed.slice(0, cut)}\n[… ${trimmed.length - cut} more characters cut; the whole message is in report.json]`;
}
