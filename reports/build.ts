// From test outcomes to rule verdicts: the heart of the report, with no I/O.
import { retriesOf } from './retries.ts';
import type { RuleFailure, RuleNotJudged } from '../harness/test-evidence.ts';
import { PLANES, RULE_SOURCES, type Plane, type Rule } from '../specs/contract.ts';
import { compareReports } from './compare.ts';
import { isExpected, type ExpectationsFile } from './expectations.ts';
import { gateOf } from './gate.ts';
import { markUnexplained, mustNotJudged } from './unjudged.ts';
import {
  emptyVerdicts,
  REPORT_VERSION,
  type ConformanceReport,
  type ConformanceRunOutcome,
  type RecordedExchange,
  type RuleResult,
  type TestOutcome,
  type Verdict,
} from './conformance-report.ts';

interface BuildInput {
  rules: Rule[];
  /**
   * Every finished test with the rule ids it is tagged with and, for a failed test that checks
   * several rules, the rules it says failed, and whether it ran to its end judging each rule apart
   * (then its other rules passed; else they were not reached).
   */
  tests: { outcome: TestOutcome; ruleIds: string[]; failures?: RuleFailure[]; judgedApart?: boolean; notJudged?: RuleNotJudged[] }[];
  exchanges: RecordedExchange[];
  target: ConformanceReport['target'];
  seed: string;
  tool: ConformanceReport['tool'];
  run: ConformanceRunOutcome;
  /** The planes the run covered (default all): the rules of the others are out of scope. */
  scope?: Plane[];
  expectations?: ExpectationsFile;
  /** An earlier report to compare with (--baseline). */
  baseline?: { file: string; report: ConformanceReport };
  /** Why no test checks a rule, by rule id. */
  untested?: Record<string, string>;
}

/** A failed precondition that no rule of the run explains counts as an error: it may hide a finding. */
const asJudged = (t: TestOutcome): TestOutcome => (t.unexplained ? { ...t, status: 'error', error: t.unexplained } : t);

/**
 * A rule's verdict from its tests: any failure fails it; otherwise a test that could not reach
 * the target makes it `error`; otherwise any pass passes it; tests that were all skipped leave
 * it skipped; no test leaves it not-tested. A test the run stopped before or during says
 * nothing: a rule with only such tests (and skipped ones) is not-run. An `unspecified` rule is
 * never failed: its verdict is `observed` once any test ran for it.
 */
export function verdictOf(rule: Rule, outcomes: TestOutcome[]): Verdict {
  if (outcomes.length === 0) return 'not-tested';
  const tests = outcomes.map(asJudged);
  const ran = tests.filter((t) => t.status !== 'skipped' && t.status !== 'not-run' && t.status !== 'interrupted');
  if (ran.length === 0) return tests.some((t) => t.status === 'not-run' || t.status === 'interrupted') ? 'not-run' : 'skipped';
  const judged = ran.filter((t) => t.status !== 'error');
  if (judged.length === 0) return 'error';
  if (rule.level === 'unspecified') return 'observed';
  if (judged.some((t) => t.status !== 'passed')) return 'fail';
  return ran.some((t) => t.status === 'error') ? 'error' : 'pass';
}

/**
 * A multi-rule test that failed on other rules: this rule passed when the test ran to its end
 * judging each rule apart, else its checks were not reached. A rule that failed among several
 * shows the exchange its own failure names.
 */
function forThisRule(outcome: TestOutcome, id: string, failures: RuleFailure[], judgedApart: boolean, notJudged?: RuleNotJudged): TestOutcome {
  const failedRules = failures.map((f) => f.rule);
  // A rule the test said it could not judge (a step it needed failed) was skipped on that precondition, whatever the others did.
  if (notJudged && !failedRules.includes(id) && (outcome.status === 'passed' || (outcome.status === 'failed' && judgedApart))) {
    const { failedExchange: _, reproduce: __, ...rest } = outcome;
    return { ...rest, status: 'skipped', error: undefined, reason: notJudged.reason, skip: { kind: 'precondition', explainedBy: notJudged.explainedBy } };
  }
  if (outcome.status !== 'failed' || failedRules.length === 0) return outcome;
  if (failedRules.includes(id)) {
    const exchange = failedRules.length > 1 ? failures.find((f) => f.rule === id)?.exchange : undefined;
    return exchange ? { ...outcome, failedExchange: exchange } : outcome;
  }
  const { failedExchange: _, reproduce: __, ...rest } = outcome;
  if (judgedApart) return { ...rest, status: 'passed', error: undefined };
  return { ...rest, status: 'skipped', error: undefined, reason: `not reached: ${failedRules.join(', ')} failed first in this test` };
}

export function buildReport(input: BuildInput): ConformanceReport {
  const known = new Set(input.rules.map((r) => r.id));
  const scope = new Set<Plane>(input.scope ?? PLANES);
  const byRule = new Map<string, TestOutcome[]>();
  const unknown = new Map<string, string[]>();
  for (const { outcome: given, ruleIds, failures = [], judgedApart = false, notJudged = [] } of input.tests) {
    // A precondition explains nothing about the rules of its own test; a merge asks again (unexplained is recomputed).
    const { unexplained: _, ...outcome } = given;
    if (outcome.skip?.explainedBy) outcome.skip = { ...outcome.skip, explainedBy: outcome.skip.explainedBy.filter((id) => !ruleIds.includes(id)) };
    for (const id of ruleIds) {
      if (!known.has(id)) {
        unknown.set(id, [...(unknown.get(id) ?? []), outcome.title]);
        continue;
      }
      byRule.set(id, [
        ...(byRule.get(id) ?? []),
        forThisRule(
          outcome,
          id,
          failures,
          judgedApart,
          notJudged.find((n) => n.rule === id),
        ),
      ]);
    }
  }

  const narrowed = input.run.narrowed ?? [];
  const rules: RuleResult[] = input.rules.map((rule) => {
    const tests = (byRule.get(rule.id) ?? []).map((t) => ({
      ...t,
      observed: t.observed.filter((o) => o.startsWith(`${rule.id}:`)).map((o) => o.slice(rule.id.length + 1).trim()),
    }));
    // A rule with no test in the run: none can check it, or the run was narrowed to leave its tests out.
    const untested = input.untested?.[rule.id];
    // Or the run stopped before any test (of this rule's share, in a merge): the rule is not-run, for that reason.
    const notStarted = tests.length === 0 && !untested && input.run.status === 'not-started';
    const unselected = !notStarted && tests.length === 0 && !untested && !rule.unobservable && narrowed.length > 0;
    const reason = notStarted
      ? `no test ran: ${input.run.reason ?? 'the run stopped before any test'}`
      : unselected
        ? input.run.shard && narrowed.length === 1
          ? `no test of this rule is in shard ${input.run.shard}`
          : `not selected (${narrowed.join(' ')})`
        : untested;
    return {
      id: rule.id,
      level: rule.level,
      source: rule.source,
      plane: rule.plane,
      area: rule.area,
      section: rule.section,
      text: rule.text,
      verdict: !scope.has(rule.plane) ? 'out-of-scope' : notStarted || unselected ? 'not-run' : verdictOf(rule, tests),
      tests: scope.has(rule.plane) ? tests : [],
      ...(reason ? { reason } : {}),
      ...(rule.unobservable ? { unobservable: rule.unobservable } : {}),
    };
  });
  const expectedToFail = new Set((input.expectations?.expected ?? []).filter((e) => e.verdict === 'fail').map((e) => e.rule));
  markUnexplained(rules, { expectedToFail, partial: input.run.shard !== undefined || input.run.status !== 'complete' });
  for (const rule of rules) {
    if (rule.verdict !== 'out-of-scope' && rule.verdict !== 'not-run' && rule.tests.some((t) => t.unexplained)) {
      rule.verdict = verdictOf(input.rules.find((r) => r.id === rule.id)!, rule.tests);
    }
  }
  const unexpected: string[] = [];
  if (input.expectations) {
    const byId = new Map(input.expectations.expected.map((e) => [e.rule, e]));
    for (const rule of rules.filter((r) => r.verdict !== 'out-of-scope')) {
      const expectation = byId.get(rule.id);
      if (expectation) rule.expected = { verdict: expectation.verdict, reason: expectation.reason };
      rule.asExpected = isExpected(rule.verdict, expectation);
      if (!rule.asExpected) unexpected.push(rule.id);
    }
  }

  const verdicts = emptyVerdicts();
  const byPlane: ConformanceReport['summary']['byPlane'] = {};
  const bySource = Object.fromEntries(
    RULE_SOURCES.map((source) => [source, { rules: 0, verdicts: emptyVerdicts() }]),
  ) as ConformanceReport['summary']['bySource'];
  for (const rule of rules) {
    verdicts[rule.verdict] += 1;
    if (rule.verdict === 'out-of-scope') continue;
    const plane = (byPlane[rule.plane] ??= { rules: 0, covered: 0, verdicts: emptyVerdicts() });
    plane.rules += 1;
    plane.verdicts[rule.verdict] += 1;
    if (rule.tests.length > 0) plane.covered += 1;
    bySource[rule.source].rules += 1;
    bySource[rule.source].verdicts[rule.verdict] += 1;
  }
  // An interpretation is counted apart, whatever its level: it never fails the run.
  const failures = rules.filter((r) => r.verdict === 'fail');
  const failed = (level: Rule['level']) => failures.filter((r) => r.level === level && r.source !== 'interpretation').length;
  const inScope = rules.filter((r) => r.verdict !== 'out-of-scope');
  const covered = inScope.filter((r) => r.tests.length > 0).length;
  const used = new Set(rules.flatMap((r) => r.tests.flatMap((t) => t.exchanges)));
  const exchanges: Record<string, RecordedExchange> = {};
  for (const exchange of input.exchanges) if (used.has(exchange.id)) exchanges[exchange.id] = exchange;
  const retries = retriesOf(Object.values(exchanges));

  const report = {
    reportVersion: REPORT_VERSION,
    tool: input.tool,
    target: input.target,
    seed: input.seed,
    run: input.run,
    summary: {
      rules: inScope.length,
      outOfScope: rules.length - inScope.length,
      covered,
      coverage: inScope.length === 0 ? 0 : Math.round((covered / inScope.length) * 1000) / 1000,
      verdicts,
      mustFailures: failed('MUST'),
      shouldFailures: failed('SHOULD'),
      interpretationFailures: failures.filter((r) => r.source === 'interpretation').length,
      mustNotJudged: mustNotJudged(rules, input.run),
      ...(input.expectations ? { unexpected } : {}),
      ...(retries ? { retries } : {}),
      byPlane,
      bySource,
    },
    rules,
    unknownRuleTags: [...unknown].map(([tag, tests]) => ({ tag, tests })),
    exchanges,
  };
  if (input.baseline) {
    const before = new Map(input.baseline.report.rules.map((r) => [r.id, r.verdict]));
    for (const rule of rules) rule.baseline = before.get(rule.id) ?? 'missing';
    const { regressions, fixes, lost } = compareReports(input.baseline.report, report as ConformanceReport);
    Object.assign(report.summary, { baseline: { file: input.baseline.file, regressions, fixes, lost } });
  }
  return { ...report, summary: { ...report.summary, gate: gateOf(report) } };
}
