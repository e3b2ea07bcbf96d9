// Which exchange a failure shows. A check's message describes the answer it judged (an answer's
// `describe`, a delivery's `describeDelivery`), and that description names its exchange for the
// reader. Each description made in this worker is noted here with its exchange id, so the report's
// failed exchange is the one whose description the failure's message quotes first: what the
// harness wrote is looked up, and nothing a target answered is read as a mark (a body may quote one).
const noted = new Map<string, string>();
/** Descriptions kept (the oldest are forgotten): a failure quotes one made in its own test, or in a step it shares. */
const MAX_NOTED = 4096;

/** Notes that `description` describes exchange `exchange` (none: an answer that was not recorded), and answers the description. */
export function described(description: string, exchange: string | undefined): string {
  if (exchange === undefined) return description;
  noted.delete(description);
  noted.set(description, exchange);
  if (noted.size > MAX_NOTED) noted.delete(noted.keys().next().value!);
  return description;
}

/** The exchange whose description `message` quotes first (an assertion's own comes before what it quotes), if any. */
export function exchangeDescribedIn(message: string | undefined): string | undefined {
  if (!message) return undefined;
  let first: { at: number; exchange: string } | undefined;
  for (const [description, exchange] of noted) {
    const at = message.indexOf(description);
    if (at >= 0 && (!first || at < first.at)) first = { at, exchange };
  }
  return first?.exchange;
}
