// JUnit XML: one test case per rule in scope, so CI systems show the catalogue's verdicts.
// A test case fails exactly when its rule fails the run (standing.ts): with expectations an
// expected failure is skipped as such and an unexpected verdict fails; a failed SHOULD rule is
// a warning (skipped, saying so); a rule the target did not answer is an error.
import { escapeXml } from './escape.ts';
import type { ConformanceReport, RuleResult } from './model.ts';
import { standingOf } from './standing.ts';

function testcase(report: ConformanceReport, rule: RuleResult): { xml: string; kind: string } {
  const name = `${rule.id} [${rule.level}] ${rule.text}`;
  const attrs = `classname="${escapeXml(`${rule.plane}.${rule.area}`)}" name="${escapeXml(name)}"`;
  const standing = standingOf(report, rule);
  const details = rule.tests
    .filter((t) => t.status === 'failed' || t.status === 'timedOut' || t.status === 'error')
    .map((t) => `${t.title}: ${t.error ?? t.status}`)
    .join('\n\n');
  switch (standing.kind) {
    case 'failure':
      return { kind: 'failure', xml: `    <testcase ${attrs}><failure type="${escapeXml(standing.why.split(':')[0])}" message="${escapeXml(firstLine(`${standing.why}${details ? `: ${details}` : ''}`))}">${escapeXml(`${standing.why}\n\n${details}`)}</failure></testcase>` };
    case 'error':
      return { kind: 'error', xml: `    <testcase ${attrs}><error type="unreachable" message="${escapeXml(firstLine(`${standing.why}: ${details}`))}">${escapeXml(details)}</error></testcase>` };
    case 'expected':
    case 'warning':
    case 'skipped':
      return { kind: 'skipped', xml: `    <testcase ${attrs}><skipped message="${escapeXml(firstLine(`${standing.why}${standing.kind !== 'skipped' && details ? `: ${details}` : ''}`))}"/></testcase>` };
    default:
      return { kind: 'passed', xml: standing.why ? `    <testcase ${attrs}><system-out>${escapeXml(standing.why)}</system-out></testcase>` : `    <testcase ${attrs}/>` };
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}

export function toJUnit(report: ConformanceReport): string {
  const inScope = report.rules.filter((r) => r.verdict !== 'out-of-scope');
  const count = { tests: 0, failure: 0, error: 0, skipped: 0 };
  const suites = [...new Set(inScope.map((r) => r.plane))].map((plane) => {
    const cases = inScope.filter((r) => r.plane === plane).map((r) => testcase(report, r));
    const n = (kind: string) => cases.filter((c) => c.kind === kind).length;
    count.tests += cases.length;
    count.failure += n('failure');
    count.error += n('error');
    count.skipped += n('skipped');
    return [
      `  <testsuite name="${escapeXml(plane)}" tests="${cases.length}" failures="${n('failure')}" errors="${n('error')}" skipped="${n('skipped')}">`,
      ...cases.map((c) => c.xml),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="Agent Platform API conformance: ${escapeXml(report.target.name)}" tests="${count.tests}" failures="${count.failure}" errors="${count.error}" skipped="${count.skipped}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
