// What a run could not judge: unexplained preconditions become errors, MUST rules with no verdict
// keep the run from passing unless the reason is one the run may pass with, and every output says so.
import { expect, test } from '@playwright/test';
import type { Rule } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import { consoleSummary } from './console.ts';
import type { ExpectationsFile } from './expectations.ts';
import { toJUnit } from './junit.ts';
import { reportProblems } from './load.ts';
import { toMarkdown } from './markdown.ts';
import type { ConformanceRunOutcome, TestOutcome } from './conformance-report.ts';

const rule = (id: string, extra: Partial<Rule> = {}): Rule => ({
  id,
  level: 'MUST',
  source: 'spec',
  plane: 'agent-server',
  area: 'threads',
  section: '4.5',
  text: `${id} text`,
  ...extra,
});

const skipped = (id: string, skip: TestOutcome['skip'], reason = `${id} skipped`): TestOutcome => ({
  id,
  title: id,
  file: 'x.spec.ts',
  status: 'skipped',
  reason,
  skip,
  observed: [],
  exchanges: [],
});
const ended = (id: string, status: TestOutcome['status']): TestOutcome => ({ id, title: id, file: 'x.spec.ts', status, observed: [], exchanges: [] });

function reportOf(
  rules: Rule[],
  tests: { outcome: TestOutcome; ruleIds: string[] }[],
  { run = {}, expectations }: { run?: Partial<ConformanceRunOutcome>; expectations?: ExpectationsFile } = {},
) {
  return buildReport({
    rules,
    tests,
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {}, ...run },
    tool: { name: 'x', version: '0' },
    expectations,
  });
}

test('a failed precondition is explained by a rule that failed in the run, and an error when none did', () => {
  const rules = [rule('R-STEP'), rule('R-JUDGED'), rule('R-ORPHAN'), rule('R-SELF')];
  const report = reportOf(rules, [
    { outcome: ended('step', 'failed'), ruleIds: ['R-STEP'] },
    { outcome: skipped('explained', { kind: 'precondition', explainedBy: ['R-STEP'] }), ruleIds: ['R-JUDGED'] },
    { outcome: skipped('orphan', { kind: 'precondition', explainedBy: ['R-JUDGED-NOT'] }), ruleIds: ['R-ORPHAN'] },
    // A precondition that names only the test's own rule explains nothing.
    { outcome: skipped('self', { kind: 'precondition', explainedBy: ['R-SELF'] }), ruleIds: ['R-SELF'] },
  ]);
  expect(reportProblems(report)).toEqual([]);
  expect(report.rules.map((r) => [r.id, r.verdict])).toEqual([
    ['R-STEP', 'fail'],
    ['R-JUDGED', 'skipped'],
    ['R-ORPHAN', 'error'],
    ['R-SELF', 'error'],
  ]);
  expect(report.rules[2].tests[0].unexplained).toMatch(/none of the rules that would explain the failed precondition failed in this run \(R-JUDGED-NOT\)/);
  expect(report.rules[3].tests[0].unexplained).toMatch(/names no rule whose failure would explain it/);
  // The explained skip still leaves a MUST rule unjudged: the run fails for it as for the step.
  expect(report.summary.mustNotJudged).toEqual([{ id: 'R-JUDGED', verdict: 'skipped', counted: true, cause: 'precondition', why: 'explained skipped' }]);
  expect(report.summary.gate.exitCode).toBe(1);
  expect(report.summary.gate.reasons).toEqual([
    '1 MUST rules failed: R-STEP',
    '1 MUST rules were not judged: R-JUDGED',
    '2 rules could not be judged, the target did not answer their tests: R-ORPHAN, R-SELF',
  ]);
  // No test of R-JUDGED failed: its line gives the cause where a failure's title would be.
  const lines = consoleSummary(report, 'r.html', { quiet: true }).filter((l) => /^ {2}[✘∅?] /.test(l));
  expect(lines.find((l) => l.includes('R-JUDGED'))).toBe('  ∅ R-JUDGED [MUST §4.5] MUST rule not judged (precondition): explained skipped');
  for (const line of lines) expect(line, 'no line ends on an empty title').toMatch(/\] \S/);
});

test('a chain of preconditions is explained by the failure at its end, and an expected failure explains too', () => {
  const rules = [rule('R-ROOT'), rule('R-MIDDLE'), rule('R-LEAF')];
  const tests = [
    { outcome: ended('root', 'failed'), ruleIds: ['R-ROOT'] },
    { outcome: skipped('middle', { kind: 'precondition', explainedBy: ['R-ROOT'] }), ruleIds: ['R-MIDDLE'] },
    { outcome: skipped('leaf', { kind: 'precondition', explainedBy: ['R-MIDDLE'] }), ruleIds: ['R-LEAF'] },
  ];
  expect(reportOf(rules, tests).rules.map((r) => r.verdict)).toEqual(['fail', 'skipped', 'skipped']);
  const expected = { target: 't', expected: [{ rule: 'R-ROOT', verdict: 'fail' as const, reason: 'known' }] };
  const report = reportOf(rules, tests, { expectations: expected });
  expect(report.rules.map((r) => r.verdict)).toEqual(['fail', 'skipped', 'skipped']);
  expect(report.summary.gate.reasons, 'with expectations, the skips are still MUST rules not judged').toEqual([
    '2 MUST rules were not judged: R-MIDDLE, R-LEAF',
  ]);
});

test('a skip whose explaining rules ran in another shard, or in a run that stopped, waits for a verdict', () => {
  const rules = [rule('R-ELSEWHERE'), rule('R-WAITING')];
  const tests = [{ outcome: skipped('waiting', { kind: 'precondition', explainedBy: ['R-ELSEWHERE'] }), ruleIds: ['R-WAITING'] }];
  const shard = reportOf(rules, tests, { run: { shard: '1/2', narrowed: ['--shard 1/2'] } });
  expect(shard.rules.map((r) => r.verdict)).toEqual(['not-run', 'skipped']);
  expect(shard.rules[1].tests[0].unexplained).toBeUndefined();
  const narrowed = reportOf(rules, tests, { run: { narrowed: ['--grep R-WAITING'] } });
  expect(narrowed.rules[1].verdict, 'a narrowed run that left the explaining rule out cannot tell').toBe('error');
  expect(narrowed.rules[1].tests[0].unexplained).toMatch(/none of the rules that would explain the failed precondition ran in this run/);
});

test('a MUST rule with no verdict counts unless the target declared why, the catalogue says it cannot be seen, an expectation names it, or the run left it out', () => {
  const rules = [
    rule('R-DECLARED'),
    rule('R-MACHINE'),
    rule('R-UNCLASSIFIED'),
    rule('R-UNOBSERVABLE', { unobservable: 'billing is not an HTTP behaviour' }),
    rule('R-EXPECTED'),
    rule('R-NO-TEST'),
    rule('R-SHOULD', { level: 'SHOULD', source: 'service' }),
  ];
  const tests = [
    { outcome: skipped('declared', { kind: 'declared' }, "needs the 'virtual-clock' capability"), ruleIds: ['R-DECLARED'] },
    { outcome: skipped('machine', { kind: 'machine' }, 'the requests could not share a window'), ruleIds: ['R-MACHINE'] },
    { outcome: skipped('raw', { kind: 'unclassified' }), ruleIds: ['R-UNCLASSIFIED'] },
    { outcome: skipped('expected', { kind: 'unclassified' }), ruleIds: ['R-EXPECTED'] },
    { outcome: skipped('should', { kind: 'unclassified' }), ruleIds: ['R-SHOULD'] },
  ];
  const expectations = { target: 't', expected: [{ rule: 'R-EXPECTED', verdict: 'skipped' as const, reason: 'the server has no such option' }] };
  const report = reportOf(rules, tests, { expectations });
  expect(report.summary.mustNotJudged.map((n) => [n.id, n.counted, n.cause])).toEqual([
    ['R-DECLARED', false, 'declared'],
    ['R-MACHINE', true, 'machine'],
    ['R-UNCLASSIFIED', true, 'skipped'],
    ['R-UNOBSERVABLE', false, 'unobservable'],
    ['R-EXPECTED', false, 'expected'],
    ['R-NO-TEST', true, 'untested'],
  ]);
  expect(report.summary.gate).toEqual({
    exitCode: 1,
    passed: false,
    reasons: [
      '2 MUST rules were not judged: R-UNCLASSIFIED, R-NO-TEST',
      '1 MUST rules could not be judged here (this machine, or what the target holds, could not make the check): R-MACHINE',
    ],
  });
  const lines = consoleSummary(report, 'r.html', { quiet: true });
  expect(lines).toContain(
    'MUST rules not judged: 3 (1 could not be checked here: R-MACHINE; 1 skipped: R-UNCLASSIFIED; 1 no test ran: R-NO-TEST); not counted: 3 (1 ruled out by what the target declares, 1 not observable on a running target, 1 named by the expectations).',
  );
  expect(lines.filter((l) => l.startsWith('  ∅')).map((l) => l.trim().split(' ')[1])).toEqual(['R-UNCLASSIFIED', 'R-NO-TEST']);
  const junit = toJUnit(report);
  expect(junit).toMatch(/R-UNCLASSIFIED[^\n]*<failure type="MUST rule not judged \(skipped\)"/);
  expect(junit).toMatch(/R-MACHINE[^\n]*<error type="not-judged"/);
  expect(junit).toMatch(/R-DECLARED[^\n]*<skipped message="needs the &apos;virtual-clock&apos; capability"/);
  const markdown = toMarkdown(report);
  expect(markdown).toMatch(/## MUST rules not judged \(they fail the run\)\n\n### [^\n]* R-UNCLASSIFIED/);
  expect(markdown).toContain('- R-UNOBSERVABLE (unobservable): not observable on a running target: billing is not an HTTP behaviour');

  const onlyDeclared = reportOf([rule('R-DECLARED')], [tests[0]]);
  expect(onlyDeclared.summary.gate).toEqual({ exitCode: 0, passed: true, reasons: ['no MUST rule failed or went unjudged'] });
});

test('a narrowed run says so, and the rules it left out are not-run, not counted against it', () => {
  const rules = [rule('R-SELECTED'), rule('R-LEFT-OUT')];
  const report = reportOf(rules, [{ outcome: ended('selected', 'passed'), ruleIds: ['R-SELECTED'] }], { run: { narrowed: ['--grep R-SELECTED'] } });
  expect(report.rules.map((r) => [r.verdict, r.reason])).toEqual([
    ['pass', undefined],
    ['not-run', 'not selected (--grep R-SELECTED)'],
  ]);
  expect(report.summary.mustNotJudged).toEqual([
    { id: 'R-LEFT-OUT', verdict: 'not-run', counted: false, cause: 'not-selected', why: 'not selected (--grep R-SELECTED)' },
  ]);
  expect(report.summary.gate.reasons).toEqual(['no MUST rule failed or went unjudged among the rules selected (narrowed by --grep R-SELECTED)']);
  const narrowedLine = 'Narrowed run (--grep R-SELECTED): 1 rules in scope not selected (1 MUST), 0 out of scope; the verdicts are of the rules selected only.';
  expect(consoleSummary(report, 'r.html', { quiet: true })).toContain(narrowedLine);
  expect(consoleSummary(report, 'r.html')[0], 'the count line says why the rule did not run').toMatch(/, 1 not run \(not selected\)\.$/);
  expect(toMarkdown(report)).toContain(`> ${narrowedLine}`);
});
