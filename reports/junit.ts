// JUnit XML: one test case per rule, so CI systems show the rule catalogue's verdicts.
import { escapeXml } from './escape.ts';
import type { ConformanceReport, RuleResult } from './model.ts';

function testcase(rule: RuleResult): string {
  const name = `${rule.id} [${rule.level}] ${rule.text}`;
  const attrs = `classname="${escapeXml(`${rule.plane}.${rule.area}`)}" name="${escapeXml(name)}"`;
  const failing = rule.tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped');
  switch (rule.verdict) {
    case 'fail': {
      const message = failing.map((t) => `${t.title}: ${t.error ?? t.status}`).join('\n\n');
      const type = rule.level === 'MUST' ? 'MUST' : 'SHOULD';
      return `    <testcase ${attrs}><failure type="${type}" message="${escapeXml(firstLine(message))}">${escapeXml(message)}</failure></testcase>`;
    }
    case 'skipped':
      return `    <testcase ${attrs}><skipped message="${escapeXml(rule.tests.map((t) => t.reason ?? 'skipped').join('; '))}"/></testcase>`;
    case 'not-run':
      return `    <testcase ${attrs}><skipped message="${escapeXml(rule.tests.find((t) => t.status === 'not-run' || t.status === 'interrupted')?.reason ?? 'not run')}"/></testcase>`;
    case 'not-tested':
      return `    <testcase ${attrs}><skipped message="no test checks this rule yet"/></testcase>`;
    case 'observed':
      return `    <testcase ${attrs}><system-out>${escapeXml(rule.tests.flatMap((t) => t.observed).join('\n') || 'observed')}</system-out></testcase>`;
    default:
      return `    <testcase ${attrs}/>`;
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}

export function toJUnit(report: ConformanceReport): string {
  const planes = [...new Set(report.rules.map((r) => r.plane))];
  const suites = planes.map((plane) => {
    const rules = report.rules.filter((r) => r.plane === plane);
    const failures = rules.filter((r) => r.verdict === 'fail').length;
    const skipped = rules.filter((r) => r.verdict === 'skipped' || r.verdict === 'not-tested' || r.verdict === 'not-run').length;
    return [
      `  <testsuite name="${escapeXml(plane)}" tests="${rules.length}" failures="${failures}" skipped="${skipped}" errors="0">`,
      ...rules.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  const s = report.summary;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="Agent Platform API conformance: ${escapeXml(report.target.name)}" tests="${s.rules}" failures="${s.verdicts.fail}" skipped="${s.verdicts.skipped + s.verdicts['not-tested'] + s.verdicts['not-run']}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
