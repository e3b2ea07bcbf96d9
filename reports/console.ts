// What a run prints when it ends, for a person or a CI log: the summary line, the failures
// (with expectations, only the unexpected verdicts: the expected ones are counted), the outcome
// with its exit code, where the report is, and last the failing MUST rules, so that a log's
// last line names them. Failed interpretations (our reading, not the spec's or the service's)
// get a line of their own, apart from the SHOULD warnings. Quiet: the failures and the last lines only. GitHub: each failing rule
// also as an error annotation.
import type { ConformanceReport, RuleResult } from './model.ts';
import { standingOf } from './standing.ts';

const MAX_ERROR = 240;

interface ConsoleOptions {
  quiet?: boolean;
  githubAnnotations?: boolean;
}

/** The rules that decide the outcome: failures, then rules the target did not answer. */
function shown(report: ConformanceReport): RuleResult[] {
  const kind = (r: RuleResult) => standingOf(report, r).kind;
  return [...report.rules.filter((r) => kind(r) === 'failure'), ...report.rules.filter((r) => kind(r) === 'error')];
}

function firstFailure(rule: RuleResult): { title: string; error: string } {
  const test = rule.tests.find((t) => t.status === 'failed' || t.status === 'timedOut' || t.status === 'error');
  return { title: test?.title ?? '', error: (test?.error ?? '').split('\n')[0].slice(0, MAX_ERROR) };
}

export function consoleSummary(report: ConformanceReport, htmlPath: string, options: ConsoleOptions = {}): string[] {
  const s = report.summary;
  const lines: string[] = [];
  if (!options.quiet) {
    lines.push(
      `Conformance: ${s.rules} rules in scope${s.outOfScope ? ` (${s.outOfScope} out of scope)` : ''}, ${s.covered} tested (${(s.coverage * 100).toFixed(1)}%): ` +
        `${s.verdicts.pass} pass, ${s.verdicts.fail} fail (${s.mustFailures} MUST, ${s.interpretationFailures} interpretations), ` +
        `${s.verdicts.error ? `${s.verdicts.error} not judged (target unreachable), ` : ''}` +
        `${s.verdicts.skipped} skipped, ${s.verdicts['not-tested']} not tested, ${s.verdicts.observed} observed` +
        (s.verdicts['not-run'] ? `, ${s.verdicts['not-run']} not run (${report.run.reason})` : '') +
        '.',
    );
    if (s.unexpected) {
      const expected = report.rules.filter((r) => r.verdict === 'fail' && r.asExpected).length;
      lines.push(
        `Against the expectations: ${s.unexpected.length === 0 ? 'every verdict as expected' : `${s.unexpected.length} unexpected`}${expected ? `; ${expected} failures as expected` : ''}.`,
      );
    }
    if (s.baseline) lines.push(`Against ${s.baseline.file}: ${s.baseline.regressions.length} regressions, ${s.baseline.fixes.length} fixed.`);
    const warnings = report.rules.filter((r) => standingOf(report, r).kind === 'warning').map((r) => r.id);
    if (warnings.length > 0) lines.push(`Warnings (SHOULD rules failed, which do not fail the run): ${warnings.join(', ')}.`);
    const interpretations = report.rules.filter((r) => standingOf(report, r).kind === 'interpretation').map((r) => r.id);
    if (interpretations.length > 0) {
      lines.push(`Warnings (interpretations failed: our reading, not the spec's or the service's; they do not fail the run): ${interpretations.join(', ')}.`);
    }
  }
  const rules = shown(report);
  for (const rule of rules) {
    const { title, error } = firstFailure(rule);
    const what = standingOf(report, rule).why ?? '';
    lines.push(
      `  ${standingOf(report, rule).kind === 'error' ? '?' : '✘'} ${rule.id} [${rule.level} §${rule.section}] ${title}`,
      ...[what, error].filter(Boolean).map((l) => `      ${l}`),
    );
  }
  if (options.githubAnnotations) {
    for (const rule of rules) {
      const { title, error } = firstFailure(rule);
      const message = [standingOf(report, rule).why, title, error].filter(Boolean).join(': ');
      lines.push(`::error title=${property(`${rule.id} (${rule.level} §${rule.section})`)}::${data(`${rule.text} — ${message}`)}`);
    }
  }
  lines.push(`Result: ${s.gate.passed ? 'passed' : 'failed'} (exit ${s.gate.exitCode}): ${s.gate.reasons.join('; ')}.`);
  lines.push(`Report: ${htmlPath}`);
  const must = rules.filter((r) => r.level === 'MUST' && r.verdict === 'fail').map((r) => r.id);
  if (must.length > 0) lines.push(`Failing MUST rules: ${must.join(', ')}`);
  return lines;
}

/** GitHub Actions workflow-command escaping (message data, and property values). */
function data(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
