// Two reports compared rule by rule: what broke, what was fixed, what passes against its
// expectations, and every verdict that moved. `--baseline` gates on it; `compare` prints it.
import type { Change, ConformanceReport, RuleResult } from './conformance-report.ts';

export interface Comparison {
  /** Rules that fail now and did not before, and rules that passed and are gone. */
  regressions: Change[];
  /** Rules that failed before and pass now. */
  fixes: Change[];
  /** Rules that had a verdict before (pass or observed) and have none now (skipped, not-run, not-tested): shown apart from regressions. */
  lost: Change[];
  /** Rules the new report's expectations say fail, which pass. */
  unexpectedPasses: Change[];
  /** Every rule whose verdict differs. */
  changes: Change[];
  /** Rules the new report's narrowed run (--plane, --grep, --shard…) did not select: not compared. */
  notSelected: number;
}

const UNJUDGED: Change['after'][] = ['skipped', 'not-run', 'not-tested'];

const change = (id: string, level: Change['level'], before: Change['before'], after: Change['after']): Change => ({ id, level, before, after });

/**
 * Whether a narrowed run left the rule out: its plane was not selected, or none of its tests was.
 * Such a rule has no verdict of this run to compare (a shard or a --grep is not a lost verdict).
 */
export function notSelected(report: ConformanceReport, rule: RuleResult): boolean {
  if (!report.run.narrowed?.length) return false;
  return rule.verdict === 'out-of-scope' || (rule.verdict === 'not-run' && rule.tests.length === 0);
}

export function compareReports(before: ConformanceReport, after: ConformanceReport): Comparison {
  const old = new Map(before.rules.map((r) => [r.id, r]));
  const left = new Set(after.rules.filter((r) => notSelected(after, r)).map((r) => r.id));
  const now = new Map(after.rules.filter((r) => !left.has(r.id)).map((r) => [r.id, r]));
  const ids = [...new Set([...old.keys(), ...now.keys()])].filter((id) => !left.has(id));
  const changes: Change[] = [];
  for (const id of ids) {
    const a = old.get(id);
    const b = now.get(id);
    const beforeVerdict = a?.verdict ?? 'missing';
    const afterVerdict = b?.verdict ?? 'missing';
    if (beforeVerdict !== afterVerdict) changes.push(change(id, (b ?? a)!.level, beforeVerdict, afterVerdict));
  }
  return {
    regressions: changes.filter((c) => (c.after === 'fail' && c.before !== 'fail') || (c.before === 'pass' && c.after === 'missing')),
    fixes: changes.filter((c) => c.before === 'fail' && c.after === 'pass'),
    lost: changes.filter((c) => (c.before === 'pass' || c.before === 'observed') && UNJUDGED.includes(c.after)),
    unexpectedPasses: after.rules
      .filter((r: RuleResult) => r.verdict === 'pass' && r.expected?.verdict === 'fail')
      .map((r) => change(r.id, r.level, r.expected!.verdict, r.verdict)),
    changes,
    notSelected: left.size,
  };
}

/** The comparison in one line: what `compare --out` prints, and the head of its Markdown. */
export function comparisonSummary(comparison: Comparison): string {
  const lostMust = comparison.lost.filter((c) => c.level === 'MUST').length;
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  return [
    count(comparison.regressions.length, 'regression'),
    `${count(comparison.lost.length, 'verdict')} lost (${lostMust} MUST)`,
    `${comparison.fixes.length} fixed`,
    count(comparison.unexpectedPasses.length, 'unexpected pass', 'unexpected passes'),
    `${count(comparison.changes.length, 'verdict')} changed`,
    ...(comparison.notSelected > 0 ? [`${count(comparison.notSelected, 'rule')} the new run did not select, not compared`] : []),
  ].join(', ');
}

/** The comparison as Markdown, for a pull-request comment. */
export function comparisonMarkdown(comparison: Comparison, names: { before: string; after: string }): string {
  const list = (title: string, rows: Change[]) =>
    rows.length === 0
      ? []
      : [
          `### ${title} (${rows.length})`,
          '',
          '| rule | level | before | now |',
          '|---|---|---|---|',
          ...rows.map((c) => `| ${c.id} | ${c.level} | ${c.before} | ${c.after} |`),
          '',
        ];
  const head =
    comparison.regressions.length > 0 ? `**${comparison.regressions.length} regression${comparison.regressions.length === 1 ? '' : 's'}**` : 'No regression';
  const lostMust = comparison.lost.filter((c) => c.level === 'MUST').length;
  const lost = comparison.lost.length > 0 ? `**${comparison.lost.length} verdicts lost** (${lostMust} MUST)` : 'no verdict lost';
  return [
    `## Conformance: ${names.after} against ${names.before}`,
    '',
    `${head} · ${lost} · ${comparison.fixes.length} fixed · ${comparison.unexpectedPasses.length} unexpected passes · ${comparison.changes.length} verdicts changed`,
    '',
    ...(comparison.notSelected > 0
      ? [`${comparison.notSelected} rules ${names.after} did not select (a narrowed run: --plane, --grep, --shard…) are not compared.`, '']
      : []),
    ...list('Regressions', comparison.regressions),
    ...list('Lost verdicts (judged before, not now: skipped, not run or not tested)', comparison.lost),
    ...list('Fixed', comparison.fixes),
    ...list('Passing against the expectations', comparison.unexpectedPasses),
    // The rest of the changes: those above are not listed twice.
    ...list(
      'Other verdict changes',
      comparison.changes.filter((c) => !comparison.regressions.includes(c) && !comparison.fixes.includes(c) && !comparison.lost.includes(c)),
    ),
  ].join('\n');
}
