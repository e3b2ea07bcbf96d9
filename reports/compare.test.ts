// Two reports compared rule by rule, and the reports compare, merge and --baseline accept.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Rule } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import { compareReports, comparisonMarkdown, comparisonSummary } from './compare.ts';
import { consoleSummary } from './console.ts';
import { toMarkdown } from './markdown.ts';
import { loadReport, ReportError } from './load.ts';
import type { ConformanceRunOutcome, TestOutcome } from './conformance-report.ts';

const rule = (id: string): Rule => ({ id, level: 'MUST', source: 'spec', plane: 'agent-server', area: 'threads', section: '4.5', text: id });
const outcome = (id: string, status: TestOutcome['status']): TestOutcome => ({ id, title: id, file: 'x.spec.ts', status, observed: [], exchanges: [] });

/** A report of rules A to E whose tests ended as given (a rule without a status has no test). */
function reportOf(
  statuses: Partial<Record<string, TestOutcome['status']>>,
  expectations?: { rule: string; verdict: 'fail'; reason: string }[],
  more: Partial<Parameters<typeof buildReport>[0]> = {},
) {
  return buildReport({
    rules: ['A', 'B', 'C', 'D', 'E'].map((id) => rule(`R-${id}`)),
    tests: Object.entries(statuses).map(([id, status]) => ({ outcome: outcome(id, status!), ruleIds: [`R-${id}`] })),
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
    expectations: expectations && { target: 't', expected: expectations },
    ...more,
  });
}

test('a regression is a rule that fails now and did not, or passed and is gone; a fix the reverse', () => {
  const before = reportOf({ A: 'passed', B: 'failed', C: 'passed', D: 'skipped' });
  const after = reportOf({ A: 'failed', B: 'passed', D: 'failed', E: 'passed' }, [{ rule: 'R-E', verdict: 'fail', reason: 'known' }]);
  const comparison = compareReports(before, after);
  expect(comparison.regressions.map((c) => `${c.id} ${c.before}→${c.after}`)).toEqual(['R-A pass→fail', 'R-D skipped→fail']);
  expect(comparison.fixes.map((c) => c.id)).toEqual(['R-B']);
  expect(
    comparison.lost.map((c) => `${c.id} ${c.before}→${c.after}`),
    'judged before, not now: shown apart from regressions',
  ).toEqual(['R-C pass→not-tested']);
  expect(comparison.unexpectedPasses.map((c) => c.id)).toEqual(['R-E']);
  expect(comparison.changes.map((c) => c.id)).toEqual(['R-A', 'R-B', 'R-C', 'R-D', 'R-E']);
  const markdown = comparisonMarkdown(comparison, { before: 'main', after: 'branch' });
  expect(markdown).toMatch(
    /^## Conformance: branch against main\n\n\*\*2 regressions\*\* · \*\*1 verdicts lost\*\* \(1 MUST\) · 1 fixed · 1 unexpected passes · 5 verdicts changed/,
  );
  expect(markdown).toMatch(
    /### Lost verdicts [^\n]*\(1\)\n\n\| rule \| level \| before \| now \|\n\|---\|---\|---\|---\|\n\| R-C \| MUST \| pass \| not-tested \|/,
  );
  expect(markdown).toMatch(/### Other verdict changes \(1\)\n\n[^#]*\| R-E \| MUST \| not-tested \| pass \|/);
  expect(compareReports(after, after)).toEqual({
    regressions: [],
    fixes: [],
    lost: [],
    unexpectedPasses: comparison.unexpectedPasses,
    changes: [],
    notSelected: 0,
  });
});

test('a narrowed run (a shard, a --grep) is compared on the rules it selected only, and every output says so', () => {
  const before = reportOf({ A: 'passed', B: 'passed', C: 'failed' });
  const shard: ConformanceRunOutcome = { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {}, shard: '1/2', narrowed: ['--shard 1/2'] };
  const after = reportOf({ A: 'failed' }, undefined, { run: shard, baseline: { file: 'old/report.json', report: before } });
  const comparison = compareReports(before, after);
  expect(comparison.lost, 'a rule the shard did not run is no lost verdict').toEqual([]);
  expect(comparison.regressions.map((c) => c.id)).toEqual(['R-A']);
  expect(comparison.changes.map((c) => c.id)).toEqual(['R-A']);
  expect(comparison.notSelected).toBe(4);
  expect(after.summary.baseline).toMatchObject({ regressions: [{ id: 'R-A' }], lost: [], fixes: [] });
  const note = 'only the rules this narrowed run selected are compared: 4 not selected';
  expect(consoleSummary(after, 'report.html', { quiet: true }), 'quiet, the console still names the comparison').toContain(
    `Against old/report.json: 1 regressions, 0 verdicts lost (0 MUST), 0 fixed (${note}).`,
  );
  expect(toMarkdown(after)).toContain(`1 regressions, 0 verdicts lost, 0 fixed (${note}).`);
  expect(toMarkdown(after)).not.toContain('verdict lost');
  expect(comparisonMarkdown(comparison, { before: 'main', after: 'shard' })).toContain(
    '4 rules shard did not select (a narrowed run: --plane, --grep, --shard…) are not compared.',
  );
  expect(comparisonSummary(comparison)).toBe(
    '1 regression, 0 verdicts lost (0 MUST), 0 fixed, 0 unexpected passes, 1 verdict changed, 4 rules the new run did not select, not compared',
  );
});

test('a report of another major version, of another tool or off its schema is refused with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apc-load-'));
  const write = (name: string, value: unknown) => {
    writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
    return join(dir, name);
  };
  const report = reportOf({ A: 'passed' });
  expect(loadReport(write('ok.json', report)).summary.gate).toEqual(report.summary.gate);
  expect(loadReport(write('minor.json', { ...report, reportVersion: '1.7' })).reportVersion, 'a newer minor version only adds').toBe('1.7');
  expect(() => loadReport(write('major.json', { ...report, reportVersion: '2.0' }))).toThrow(/format 2\.0; this version of the tool reads format 1\.x/);
  expect(() => loadReport(write('other.json', { rules: [] }))).toThrow(/no conformance report of this tool/);
  expect(() => loadReport(write('bad.json', { ...report, rules: 'none' }))).toThrow(/does not match the report schema[^:]*: \/rules must be array/);
  expect(() => loadReport(write('text.json', 'not json'))).toThrow(ReportError);
  expect(() => loadReport(join(dir, 'missing'))).toThrow(/does not exist/);
});
