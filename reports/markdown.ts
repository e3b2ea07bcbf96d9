// A Markdown summary for CI job pages and pull requests: the outcome first (the same as the
// exit code), then the counts (per plane, and per source so interpretations stand apart), what
// the run left on the target, what decides the outcome (failures, unexpected verdicts,
// regressions, rules not judged), the expected failures, the warnings, the failed
// interpretations, and every rule.
import type { ConformanceReport, Reproduction, RuleResult } from './conformance-report.ts';
import { narrowedLine, notComparedNote, notJudgedLine } from './console.ts';
import { retriesLine } from './retries.ts';
import { wholeMessage } from './message.ts';
import { standingOf, type Standing } from './standing.ts';
import { sectionLabel } from '../specs/sections.ts';

const ICON: Record<string, string> = {
  pass: '✅',
  fail: '❌',
  error: '⚠️',
  skipped: '⏭️',
  'not-tested': '⬜',
  observed: '👁️',
  'not-run': '⏸️',
  'out-of-scope': '▫️',
};

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function ruleBlock(report: ConformanceReport, rule: RuleResult, standing: Standing): string[] {
  const heading = `### ${ICON[rule.verdict]} ${rule.id} (${rule.level}, ${rule.source}, ${sectionLabel(rule.section)})`;
  const lines = [heading, '', rule.text, '', `*${standing.why ?? rule.verdict}*`, ''];
  for (const test of rule.tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped')) {
    lines.push(
      `- **${test.title}** (${test.file})`,
      '',
      '  ```',
      ...wholeMessage(test.error ?? test.reason ?? test.status)
        .split('\n')
        .map((l) => `  ${l}`),
      '  ```',
    );
    // The exchange the failure names first, marked; then the test's last ones.
    const failed = test.failedExchange;
    const shown = failed ? [failed, ...test.exchanges.filter((id) => id !== failed).slice(-2)] : test.exchanges.slice(-3);
    for (const id of shown) {
      const e = report.exchanges[id];
      const what = e?.delivery ? 'webhook delivery' : 'exchange';
      if (e) lines.push(`  - ${id === failed ? '**failed:** ' : ''}${what} \`${id}\`: \`${e.request.method} ${e.request.url}\` → ${e.response.status}`);
    }
    if (test.reproduce && rule.level === 'MUST' && rule.verdict === 'fail') lines.push('', ...reproduction(test.reproduce));
  }
  return [...lines, ''];
}

/** The most of a curl this summary shows: a long body would crowd out the rest (CI pages cap a summary's size). */
const MAX_CURL = 4000;

/** A MUST failure's reproduction lines, as a shell block inside its list item. */
function reproduction(repro: Reproduction): string[] {
  const curl =
    repro.curl && repro.curl.length > MAX_CURL
      ? `# the curl of the failed request is ${repro.curl.length} characters: report.html and report.json hold it`
      : repro.curl;
  const text = [repro.command, ...(curl ? [curl] : [])].join('\n');
  // A fence longer than any run of backticks in the text, so no body can close it.
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return [
    `  Reproduce${curl?.includes('${') ? ' (set the environment variables the curl names first)' : ''}:`,
    '',
    `  ${fence}sh`,
    ...text.split('\n').map((l) => `  ${l}`),
    `  ${fence}`,
  ];
}

/** What the run created on the target, what its cleanup deleted and what is left, per endpoint and kind. */
function leftovers(report: ConformanceReport): string[] {
  const rows = Object.entries(report.run.created).flatMap(([endpoint, kinds]) =>
    Object.entries(kinds ?? {}).map(
      ([kind, n]) =>
        `| ${endpoint} | ${kind} | ${n} | ${report.run.cleanedUp[endpoint as keyof typeof report.run.cleanedUp]?.[kind] ?? 0} | ${report.run.left[endpoint as keyof typeof report.run.left]?.[kind] ?? 0} |`,
    ),
  );
  if (rows.length === 0) return [];
  return [
    '## What the run created on the target',
    '',
    '| endpoint | kind | created | cleaned up | left on the target |',
    '|---|---|---:|---:|---:|',
    ...rows,
    '',
  ];
}

export function toMarkdown(report: ConformanceReport): string {
  const s = report.summary;
  const standings = new Map(report.rules.map((r) => [r.id, standingOf(report, r)]));
  const of = (kind: Standing['kind']) => report.rules.filter((r) => standings.get(r.id)!.kind === kind);
  const columns = ['pass', 'fail', 'error', 'skipped', 'not-tested', 'observed', 'not-run'] as const;
  const lines = [
    `# Agent Platform API conformance: ${report.target.name}`,
    '',
    `**${s.gate.passed ? 'Passed' : 'Failed'}** (exit ${s.gate.exitCode}): ${s.gate.reasons.join('; ')}.`,
    '',
    ...(report.run.status === 'complete'
      ? []
      : report.run.status === 'not-started'
        ? [`> **No test ran**: ${report.run.reason}. Every rule in scope is not-run (${s.verdicts['not-run']}).`, '']
        : [`> **Partial report**: ${report.run.reason}; ${s.verdicts['not-run']} rules not run.`, '']),
    ...(report.run.shard
      ? [`> **Shard ${report.run.shard}** of a run: rules tested in the other shards are not-run here; \`merge\` joins the shards' reports.`, '']
      : []),
    ...[narrowedLine(report), retriesLine(report)].filter((l) => l !== undefined).flatMap((l) => [`> ${l}`, '']),
    ...(report.run.status === 'not-started' ? [] : [notJudgedLine(report), '']),
    `Seed \`${report.seed}\` · profile \`${report.run.profile}\` · ${s.rules} rules in scope${s.outOfScope ? ` (${s.outOfScope} out of scope: planes the run did not cover)` : ''} · ${s.covered} with a test (coverage ${(s.coverage * 100).toFixed(1)}%) · ${s.mustFailures} MUST failures, ${s.shouldFailures} SHOULD failures, ${s.interpretationFailures} interpretation failures`,
    '',
    `| plane | rules | tested | ${columns.join(' | ')} |`,
    `|---|---:|---:|${columns.map(() => '---:').join('|')}|`,
    ...Object.entries(s.byPlane).map(([plane, p]) => `| ${plane} | ${p.rules} | ${p.covered} | ${columns.map((c) => p.verdicts[c]).join(' | ')} |`),
    `| **all** | ${s.rules} | ${s.covered} | ${columns.map((c) => s.verdicts[c]).join(' | ')} |`,
    '',
    // Interpretations are our reading where neither the spec nor the service states a rule: counted apart.
    `| source | rules | ${columns.join(' | ')} |`,
    `|---|---:|${columns.map(() => '---:').join('|')}|`,
    ...Object.entries(s.bySource).map(([source, p]) => `| ${source} | ${p.rules} | ${columns.map((c) => p.verdicts[c]).join(' | ')} |`),
    '',
  ];
  lines.push(...leftovers(report));
  if (s.baseline) {
    const lost = s.baseline.lost ?? [];
    lines.push(
      `## Against ${s.baseline.file}`,
      '',
      `${s.baseline.regressions.length} regressions, ${lost.length} verdicts lost, ${s.baseline.fixes.length} fixed${notComparedNote(report)}.`,
      '',
    );
    for (const c of s.baseline.regressions) lines.push(`- ❌ regression **${c.id}** (${c.level}): ${c.before} → ${c.after}`);
    for (const c of lost) lines.push(`- ⏸️ verdict lost **${c.id}** (${c.level}): ${c.before} → ${c.after}`);
    for (const c of s.baseline.fixes) lines.push(`- ✅ fixed **${c.id}** (${c.level}): ${c.before} → ${c.after}`);
    lines.push('');
  }
  const failures = of('failure');
  if (failures.length > 0) lines.push('## What fails the run', '', ...failures.flatMap((r) => ruleBlock(report, r, standings.get(r.id)!)));
  const unjudged = of('unjudged');
  if (unjudged.length > 0)
    lines.push('## MUST rules not judged (they fail the run)', '', ...unjudged.flatMap((r) => ruleBlock(report, r, standings.get(r.id)!)));
  // No test ran: every rule is not-run for the one reason above; listing them would bury it.
  if (report.run.status === 'not-started' && s.covered === 0) return lines.join('\n');
  const excused = (s.mustNotJudged ?? []).filter((n) => !n.counted);
  if (excused.length > 0) lines.push('## MUST rules not judged, not counted', '', ...excused.map((n) => `- ${n.id} (${n.cause}): ${cell(n.why)}`), '');
  const errors = of('error');
  if (errors.length > 0)
    lines.push(
      '## Not judged: the target did not answer, or a skip hid what it would show',
      '',
      ...errors.flatMap((r) => ruleBlock(report, r, standings.get(r.id)!)),
    );
  const expected = of('expected');
  if (expected.length > 0) lines.push('## Failures as expected', '', ...expected.map((r) => `- ${r.id} (${r.level}): ${r.expected?.reason ?? ''}`), '');
  const warnings = of('warning');
  if (warnings.length > 0)
    lines.push('## Warnings: SHOULD rules failed (they do not fail the run)', '', ...warnings.flatMap((r) => ruleBlock(report, r, standings.get(r.id)!)));
  const interpretations = of('interpretation');
  if (interpretations.length > 0) {
    const title = "## Warnings: interpretations failed (our reading, not the spec's or the service's; they do not fail the run)";
    lines.push(title, '', ...interpretations.flatMap((r) => ruleBlock(report, r, standings.get(r.id)!)));
  }
  if (report.unknownRuleTags.length > 0) {
    lines.push('## Tags naming unknown rules', '', ...report.unknownRuleTags.map((u) => `- \`${u.tag}\`: ${u.tests.join(', ')}`), '');
  }
  lines.push(
    '## All rules',
    '',
    '| | rule | level | source | § | text |',
    '|---|---|---|---|---|---|',
    ...report.rules.map((r) => {
      const standing = standings.get(r.id)!;
      const note = standing.kind === 'expected' ? ' (expected)' : standing.kind === 'failure' && r.verdict !== 'fail' ? ' (unexpected)' : '';
      return `| ${ICON[r.verdict]} ${r.verdict}${note} | ${r.id} | ${r.level} | ${r.source} | ${cell(sectionLabel(r.section).slice(1))} | ${cell(r.text)} |`;
    }),
    '',
  );
  return lines.join('\n');
}
