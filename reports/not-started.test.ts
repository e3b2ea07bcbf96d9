// A run that stopped before any test: every output says why, every rule in scope is not-run, the
// gate exits 2, and a merge with such a shard exits 2 too, with the shard named.
import { expect, test } from '@playwright/test';
import { contract } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import { consoleSummary } from './console.ts';
import { toJUnit } from './junit.ts';
import { reportProblems } from './load.ts';
import { toMarkdown } from './markdown.ts';
import { mergeReports } from './merge.ts';
import { notStartedReport } from './not-started.ts';

const reason = "target 't' is not ready: control-plane http://127.0.0.1:9: cannot be reached: connect ECONNREFUSED 127.0.0.1:9";
const target = { name: 't', kind: 'config', planes: ['control-plane' as const], capabilities: [] };
const stopped = (shard?: string) =>
  notStartedReport({
    reason,
    target,
    seed: '1',
    profile: 'safe',
    tool: { name: 'x', version: '0' },
    planes: ['control-plane'],
    ...(shard ? { shard, narrowed: [`--shard ${shard}`] } : {}),
  });

test('every rule in scope is not-run with the reason, the others out of scope, and the gate exits 2 saying why', () => {
  const report = stopped();
  expect(reportProblems(report)).toEqual([]);
  expect(report.run).toMatchObject({ status: 'not-started', reason });
  const inScope = report.rules.filter((r) => r.plane === 'control-plane');
  expect(inScope.length).toBeGreaterThan(0);
  expect(new Set(inScope.map((r) => r.verdict))).toEqual(new Set(['not-run']));
  expect(inScope[0].reason).toBe(`no test ran: ${reason}`);
  expect(report.rules.filter((r) => r.plane !== 'control-plane').every((r) => r.verdict === 'out-of-scope')).toBe(true);
  expect(report.summary.gate).toEqual({ exitCode: 2, passed: false, reasons: [`no test ran: ${reason}`] });
});

test('the console, JUnit and the Markdown summary say the same: no test ran, and why', () => {
  const report = stopped();
  expect(consoleSummary(report, 'r.html')).toEqual([`Result: failed (exit 2): no test ran: ${reason}.`, 'Report: r.html']);
  const junit = toJUnit(report);
  expect(junit).toMatch(/<testsuites [^>]*errors="1"/);
  expect(junit).toContain('<testcase classname="run" name="the run started"><error type="not-started" message="no test ran: target &apos;t&apos; is not ready');
  const markdown = toMarkdown(report);
  expect(markdown).toContain(`**Failed** (exit 2): no test ran: ${reason}.`);
  expect(markdown).toContain(`> **No test ran**: ${reason}.`);
  expect(markdown, 'the reason, not a list of rules that did not run').not.toContain('## All rules');
});

test('a shard that did not start makes the merged run exit 2 naming it; the other shard keeps its verdicts', () => {
  const rule = contract().rules.find((r) => r.plane === 'control-plane' && r.level === 'MUST' && !r.unobservable)!;
  const ran = buildReport({
    rules: contract().rules,
    tests: [{ outcome: { id: 't1', title: 't1', file: 'x.spec.ts', status: 'passed', observed: [], exchanges: [] }, ruleIds: [rule.id] }],
    exchanges: [],
    target,
    seed: '1',
    run: { status: 'complete', profile: 'safe', shard: '1/2', narrowed: ['--shard 1/2'], created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
    scope: ['control-plane'],
  });
  const merged = mergeReports([
    { name: 'one', report: ran },
    { name: 'two', report: stopped('2/2') },
  ]);
  expect(merged.rules.find((r) => r.id === rule.id)?.verdict).toBe('pass');
  expect(merged.rules.filter((r) => r.plane === 'control-plane' && r.id !== rule.id).every((r) => r.verdict === 'not-run')).toBe(true);
  expect(merged.summary.gate.exitCode).toBe(2);
  expect(merged.summary.gate.reasons[0]).toBe(`no test ran: shard 2/2: ${reason}`);
});
