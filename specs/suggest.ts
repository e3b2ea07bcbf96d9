// "Did you mean": the known name closest to a mistyped one (flags, target-config keys, planes,
// profiles, body fields), so that a typo gets the fix and not only the refusal. A word that is a
// whole part of one known name is a name half remembered (--port for --base-port), not a typo.

/** Levenshtein distance: insertions, deletions and substitutions, each costing one. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/**
 * The known name meant by `given`, case and `_`/`-` aside: the one name that has `given` as a
 * whole part (`port` in `base-port`), even when another is fewer edits away (`host`); else the
 * closest by edit distance, if close enough to be a typo: within a third of its length (at least
 * 2). None when two are equally likely.
 */
export function closest(given: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/_/g, '-');
  const word = norm(given);
  // One word only: a name given in parts (`agent_server`) is a typo of a whole name, not a part of one.
  if (!word.includes('-')) {
    const holding = known.filter((name) => norm(name).split('-').includes(word));
    if (holding.length > 0) return holding.length === 1 ? holding[0] : undefined;
  }
  const scored = known.map((name) => ({ name, d: editDistance(word, norm(name)) })).sort((a, b) => a.d - b.d);
  const [best, next] = scored;
  if (!best || best.d > Math.max(2, Math.floor(given.length / 3))) return undefined;
  return next && next.d === best.d ? undefined : best.name;
}

/** `unknown plane 'agent_server' (one of agent-server, control-plane, platform-api): did you mean 'agent-server'?` */
export function unknownName(what: string, given: string, known: readonly string[]): string {
  const guess = closest(given, known);
  return `unknown ${what} '${given}' (one of ${known.join(', ')})${guess ? `: did you mean '${guess}'?` : ''}`;
}
