// What a run prints when it ends, for a person or a CI log: the summary line, the failures
// (with expectations, only the unexpected verdicts: the expected ones are counted), where the
// report is, and last the failing MUST rules, so that a log's last line names them.
import type { ConformanceReport } from './model.ts';

const MAX_ERROR = 240;

export function consoleSummary(report: ConformanceReport, htmlPath: string): string[] {
  const s = report.summary;
  const lines = [
    `Conformance: ${s.rules} rules, ${s.covered} tested (${(s.coverage * 100).toFixed(1)}%): ` +
      `${s.verdicts.pass} pass, ${s.verdicts.fail} fail (${s.mustFailures} MUST), ${s.verdicts.skipped} skipped, ` +
      `${s.verdicts['not-tested']} not tested, ${s.verdicts.observed} observed` +
      (s.verdicts['not-run'] ? `, ${s.verdicts['not-run']} not run (${report.run.reason})` : '') +
      '.',
  ];
  const failed = report.rules.filter((r) => r.verdict === 'fail');
  const shown = s.unexpected ? failed.filter((r) => r.asExpected === false) : failed;
  if (s.unexpected) {
    const expected = failed.length - shown.length;
    lines.push(`Against the expectations: ${s.unexpected.length === 0 ? 'every verdict as expected' : `${s.unexpected.length} unexpected (${s.unexpected.join(', ')})`}${expected ? `; ${expected} failures as expected` : ''}.`);
  }
  for (const rule of shown) {
    const test = rule.tests.find((t) => t.status === 'failed' || t.status === 'timedOut');
    const error = (test?.error ?? '').split('\n')[0].slice(0, MAX_ERROR);
    lines.push(`  ✘ ${rule.id} [${rule.level} §${rule.section}] ${test?.title ?? ''}`, ...(error ? [`      ${error}`] : []));
  }
  lines.push(`Report: ${htmlPath}`);
  const must = shown.filter((r) => r.level === 'MUST').map((r) => r.id);
  if (must.length > 0) lines.push(`Failing MUST rules: ${must.join(', ')}`);
  return lines;
}
