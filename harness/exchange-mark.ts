// How a failure message names the exchange it judged: `[exchange <id>]` after what it says
// (an answer through the recording proxy, a webhook delivery to the run's receiver). The
// report reads the mark back to show which of a test's exchanges failed.

const MARK = /\[exchange ([^\]\s]+)\]/;

/** The mark naming exchange `id` in a message. */
export function exchangeMark(id: string): string {
  return `[exchange ${id}]`;
}

/** The exchange the message names first (an assertion's own comes before what it quotes), if any. */
export function markedExchange(message: string | undefined): string | undefined {
  return message === undefined ? undefined : MARK.exec(message)?.[1];
}
