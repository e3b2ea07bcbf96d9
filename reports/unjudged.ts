// What a run could not judge, and whether that may pass. Two questions, asked of every report
// (and again of a merged one):
// - a failed precondition names the rules whose failure explains it; when none of them failed in
//   the run, the skip may hide a finding, and its test counts as an error (unexplained);
// - a MUST rule in scope with no verdict keeps the run from passing, unless the target declared
//   why, the catalogue marks it unobservable, an expectation names it, or the run was narrowed.
import type { ConformanceRunOutcome, NotJudged, RuleResult, TestOutcome } from './conformance-report.ts';

type Judged = Pick<RuleResult, 'id' | 'verdict' | 'tests'>;

/**
 * Marks every failed precondition of `rules` that no rule of the run explains. A rule explains it
 * when it failed, could not be judged (error), is expected to fail, or was itself skipped on a
 * precondition that is explained. A skip whose explaining rules did not run is left as it is where
 * they may yet run or would have: in a shard's report (the merge decides), in a run that stopped.
 */
export function markUnexplained(rules: Judged[], options: { expectedToFail: Set<string>; partial: boolean }): void {
  const byId = new Map(rules.map((r) => [r.id, r]));
  const explains = (id: string, seen: Set<string>): boolean => {
    const rule = byId.get(id);
    if (!rule) return false;
    if (rule.verdict === 'fail' || rule.verdict === 'error' || options.expectedToFail.has(id)) return true;
    if (rule.verdict !== 'skipped' || seen.has(id)) return false;
    seen.add(id);
    return rule.tests.some((t) => isPrecondition(t) && (t.skip?.explainedBy ?? []).some((e) => explains(e, seen)));
  };
  for (const rule of rules) {
    for (const test of rule.tests) {
      if (!isPrecondition(test)) continue;
      const names = test.skip?.explainedBy ?? [];
      if (names.some((id) => explains(id, new Set([rule.id])))) continue;
      const unrun = names.filter((id) => byId.get(id)?.verdict === 'not-run');
      if (options.partial && unrun.length > 0) continue;
      test.unexplained =
        names.length === 0
          ? 'the failed precondition names no rule whose failure would explain it, so the skip may hide a finding'
          : unrun.length === names.length
            ? `none of the rules that would explain the failed precondition ran in this run (${names.join(', ')}): run them with it`
            : `none of the rules that would explain the failed precondition failed in this run (${names.join(', ')}), so the skip may hide a finding`;
    }
  }
}

const isPrecondition = (t: TestOutcome) => t.status === 'skipped' && t.skip?.kind === 'precondition';

/** The MUST rules in scope with no verdict (skipped, not-run, not-tested), each with why and whether it counts. */
export function mustNotJudged(rules: RuleResult[], run: ConformanceRunOutcome): NotJudged[] {
  const out: NotJudged[] = [];
  for (const rule of rules) {
    if (rule.level !== 'MUST' || !['skipped', 'not-run', 'not-tested'].includes(rule.verdict)) continue;
    const entry = (counted: boolean, cause: NotJudged['cause'], why: string) => out.push({ id: rule.id, verdict: rule.verdict, counted, cause, why });
    if (rule.expected) {
      entry(false, 'expected', `the expectations name it: ${rule.expected.verdict} (${rule.expected.reason})`);
      continue;
    }
    if (rule.unobservable) {
      entry(false, 'unobservable', `not observable on a running target: ${rule.unobservable}`);
      continue;
    }
    if (rule.verdict === 'not-tested') {
      entry(true, 'untested', rule.reason ?? 'no test of this rule ran');
      continue;
    }
    if (rule.verdict === 'not-run') {
      if (rule.tests.length === 0 && run.narrowed?.length && run.status !== 'not-started')
        entry(false, 'not-selected', rule.reason ?? `not selected (${run.narrowed.join(' ')})`);
      else entry(true, 'stopped', reasons(rule.tests) || (run.reason ?? 'the run stopped before its tests'));
      continue;
    }
    const skipped = rule.tests.filter((t) => t.status === 'skipped');
    const undeclared = skipped.filter((t) => t.skip?.kind !== 'declared');
    if (undeclared.length === 0) {
      entry(false, 'declared', reasons(skipped));
      continue;
    }
    const kinds = new Set(undeclared.map((t) => t.skip?.kind ?? 'unclassified'));
    const cause = kinds.size === 1 && kinds.has('machine') ? 'machine' : kinds.size === 1 && kinds.has('precondition') ? 'precondition' : 'skipped';
    entry(true, cause, reasons(undeclared));
  }
  return out;
}

function reasons(tests: TestOutcome[]): string {
  return [...new Set(tests.map((t) => t.reason ?? t.status))].join('; ');
}
