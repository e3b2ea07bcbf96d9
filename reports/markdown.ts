// A Markdown summary for CI job pages and pull requests.
import type { ConformanceReport, RuleResult } from './model.ts';

const ICON: Record<string, string> = { pass: '✅', fail: '❌', skipped: '⏭️', 'not-tested': '⬜', observed: '👁️', 'not-run': '⏸️' };

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function failureBlock(report: ConformanceReport, rule: RuleResult): string[] {
  const lines = [`### ${ICON.fail} ${rule.id} (${rule.level}, §${rule.section})`, '', rule.text, ''];
  for (const test of rule.tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped')) {
    lines.push(`- **${test.title}** (${test.file})`, '', '  ```', ...(test.error ?? test.status).split('\n').slice(0, 12).map((l) => `  ${l}`), '  ```');
    for (const id of test.exchanges.slice(-3)) {
      const e = report.exchanges[id];
      if (e) lines.push(`  - exchange \`${id}\`: \`${e.request.method} ${e.request.url}\` → ${e.response.status}`);
    }
  }
  return [...lines, ''];
}

/** What the run created on the target and what its cleanup deleted, per endpoint and kind. */
function leftovers(report: ConformanceReport): string[] {
  const rows = Object.entries(report.run.created).flatMap(([endpoint, kinds]) =>
    Object.entries(kinds ?? {}).map(([kind, n]) => `| ${endpoint} | ${kind} | ${n} | ${report.run.cleanedUp[endpoint as keyof typeof report.run.cleanedUp]?.[kind] ?? 0} | ${report.run.left[endpoint as keyof typeof report.run.left]?.[kind] ?? 0} |`),
  );
  if (rows.length === 0) return [];
  return ['## What the run created on the target', '', '| endpoint | kind | created | cleaned up | left on the target |', '|---|---|---:|---:|---:|', ...rows, ''];
}

export function toMarkdown(report: ConformanceReport): string {
  const s = report.summary;
  const lines = [
    `# Agent Platform API conformance: ${report.target.name}`,
    '',
    ...(report.run.status === 'complete' ? [] : [`> **Partial report**: ${report.run.reason}; ${s.verdicts['not-run']} rules not run.`, '']),
    `Seed \`${report.seed}\` · profile \`${report.run.profile}\` · ${s.rules} rules · ${s.covered} with a test (coverage ${(s.coverage * 100).toFixed(1)}%) · **${s.mustFailures} MUST failures**, ${s.shouldFailures} SHOULD failures`,
    '',
    '| plane | rules | tested | pass | fail | skipped | not tested | observed | not run |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(s.byPlane).map(
      ([plane, p]) => `| ${plane} | ${p.rules} | ${p.covered} | ${p.verdicts.pass} | ${p.verdicts.fail} | ${p.verdicts.skipped} | ${p.verdicts['not-tested']} | ${p.verdicts.observed} | ${p.verdicts['not-run']} |`,
    ),
    `| **all** | ${s.rules} | ${s.covered} | ${s.verdicts.pass} | ${s.verdicts.fail} | ${s.verdicts.skipped} | ${s.verdicts['not-tested']} | ${s.verdicts.observed} | ${s.verdicts['not-run']} |`,
    '',
  ];
  lines.push(...leftovers(report));
  if (s.unexpected) {
    lines.push('## Against the expectations', '', s.unexpected.length === 0 ? 'Every verdict is as expected.' : '', ...report.rules.filter((r) => r.asExpected === false).map((r) => `- **${r.id}**: ${r.verdict}, expected ${r.expected?.verdict ?? 'not fail'}${r.expected ? ` (${r.expected.reason})` : ''}`), '');
  }
  const failed = report.rules.filter((r) => r.verdict === 'fail');
  if (failed.length > 0) lines.push('## Failures', '', ...failed.flatMap((r) => failureBlock(report, r)));
  if (report.unknownRuleTags.length > 0) {
    lines.push('## Tags naming unknown rules', '', ...report.unknownRuleTags.map((u) => `- \`${u.tag}\`: ${u.tests.join(', ')}`), '');
  }
  lines.push(
    '## All rules',
    '',
    '| | rule | level | § | text |',
    '|---|---|---|---|---|',
    ...report.rules.map((r) => `| ${ICON[r.verdict]} ${r.verdict} | ${r.id} | ${r.level} | ${r.section} | ${cell(r.text)} |`),
    '',
  );
  return lines.join('\n');
}
