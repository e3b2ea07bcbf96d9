// JUnit XML: one test case per rule in scope, so CI systems show the catalogue's verdicts.
// A test case fails exactly when its rule fails the run (standing.ts): with expectations an
// expected failure is skipped as such and an unexpected verdict fails; a failed SHOULD rule is
// a warning (skipped, saying so); a rule the target did not answer is an error. Interpretations
// (our reading, not stated by the spec or the service) have a test suite of their own, so a CI
// page never counts them with the spec's rules; every case names its level and source.
import { escapeXml } from './escape.ts';
import { wholeMessage } from './message.ts';
import type { ConformanceReport, RuleResult } from './conformance-report.ts';
import { standingOf } from './standing.ts';

const INTERPRETATIONS_SUITE = 'interpretations';

function testcase(report: ConformanceReport, rule: RuleResult): { xml: string; kind: string } {
  const name = `${rule.id} [${rule.level}${rule.source === 'spec' ? '' : `, ${rule.source}`}] ${rule.text}`;
  const attrs = `classname="${escapeXml(`${rule.plane}.${rule.area}`)}" name="${escapeXml(name)}"`;
  const properties = `<properties><property name="level" value="${rule.level}"/><property name="source" value="${rule.source}"/></properties>`;
  const standing = standingOf(report, rule);
  const details = rule.tests
    .filter((t) => t.status === 'failed' || t.status === 'timedOut' || t.status === 'error')
    .map((t) => `${t.title}: ${t.error ?? t.status}`)
    .join('\n\n');
  const open = `    <testcase ${attrs}>${properties}`;
  switch (standing.kind) {
    case 'failure':
    case 'unjudged':
      return {
        kind: 'failure',
        xml: `${open}<failure type="${escapeXml(standing.why.split(':')[0])}" message="${attribute(`${standing.why}${details ? `: ${details}` : ''}`)}">${escapeXml(`${standing.why}\n\n${details}`)}</failure></testcase>`,
      };
    case 'error':
      return {
        kind: 'error',
        xml: `${open}<error type="not-judged" message="${attribute(`${standing.why}: ${details}`)}">${escapeXml(details)}</error></testcase>`,
      };
    case 'expected':
    case 'warning':
    case 'interpretation':
    case 'skipped':
      return {
        kind: 'skipped',
        xml: `${open}<skipped message="${attribute(`${standing.why}${standing.kind !== 'skipped' && details ? `: ${details}` : ''}`)}"/></testcase>`,
      };
    default:
      return { kind: 'passed', xml: standing.why ? `${open}<system-out>${escapeXml(standing.why)}</system-out></testcase>` : `${open}</testcase>` };
  }
}

/**
 * A message attribute: the whole message (within a few KB), its line breaks written as character
 * references, since an XML parser turns a literal line break in an attribute into a space.
 */
function attribute(text: string): string {
  return escapeXml(wholeMessage(text)).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

export function toJUnit(report: ConformanceReport): string {
  const inScope = report.rules.filter((r) => r.verdict !== 'out-of-scope');
  const suiteOf = (r: RuleResult) => (r.source === 'interpretation' ? INTERPRETATIONS_SUITE : r.plane);
  const count = { tests: 0, failure: 0, error: 0, skipped: 0 };
  const suites = [...new Set(inScope.map(suiteOf))].map((suite) => {
    const cases = inScope.filter((r) => suiteOf(r) === suite).map((r) => testcase(report, r));
    const n = (kind: string) => cases.filter((c) => c.kind === kind).length;
    count.tests += cases.length;
    count.failure += n('failure');
    count.error += n('error');
    count.skipped += n('skipped');
    return [
      `  <testsuite name="${escapeXml(suite)}" tests="${cases.length}" failures="${n('failure')}" errors="${n('error')}" skipped="${n('skipped')}">`,
      ...cases.map((c) => c.xml),
      '  </testsuite>',
    ].join('\n');
  });
  // A run that stopped before any test: one error says why, so a CI page does not show a run of skips only.
  if (report.run.status === 'not-started') {
    count.tests += 1;
    count.error += 1;
    suites.unshift(
      [
        '  <testsuite name="run" tests="1" failures="0" errors="1" skipped="0">',
        `    <testcase classname="run" name="the run started"><error type="not-started" message="${attribute(`no test ran: ${report.run.reason ?? ''}`)}">${escapeXml(report.run.reason ?? '')}</error></testcase>`,
        '  </testsuite>',
      ].join('\n'),
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="Agent Platform API conformance: ${escapeXml(report.target.name)}" tests="${count.tests}" failures="${count.failure}" errors="${count.error}" skipped="${count.skipped}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
