// What a run prints when it ends, for a person or a CI log: the summary line, the failures
// (with expectations, only the unexpected verdicts: the expected ones are counted), the outcome
// with its exit code, where the report is, and last the failing MUST rules, so that a log's
// last line names them. Failed interpretations (our reading, not the spec's or the service's)
// get a line of their own, apart from the SHOULD warnings. Quiet: the failures and the last lines only. GitHub: each failing rule
// also as an error annotation.
import type { ConformanceReport, RuleResult } from './conformance-report.ts';
import { wholeMessage } from './message.ts';
import { notSelected } from './compare.ts';
import { retriesLine } from './retries.ts';
import { standingOf } from './standing.ts';

interface ConsoleOptions {
  quiet?: boolean;
  githubAnnotations?: boolean;
}

/** The rules that decide the outcome: failures, MUST rules not judged, then rules that could not be judged. */
function shown(report: ConformanceReport): RuleResult[] {
  const kind = (r: RuleResult) => standingOf(report, r).kind;
  return (['failure', 'unjudged', 'error'] as const).flatMap((k) => report.rules.filter((r) => kind(r) === k));
}

/** One line of the MUST rules with no verdict: how many keep the run from passing, and why the others do not. */
export function notJudgedLine(report: ConformanceReport): string {
  const all = report.summary.mustNotJudged ?? [];
  const counted = all.filter((n) => n.counted);
  const excused = all.filter((n) => !n.counted);
  const causes = (list: typeof all) => [...new Set(list.map((n) => n.cause))].map((cause) => [cause, list.filter((n) => n.cause === cause)] as const);
  // The counted ones are named under their cause, so that a list of ids never reads as the last cause's.
  const named = causes(counted)
    .map(([cause, of]) => `${of.length} ${CAUSES[cause]}: ${of.map((n) => n.id).join(', ')}`)
    .join('; ');
  const counts = causes(excused)
    .map(([cause, of]) => `${of.length} ${CAUSES[cause]}`)
    .join(', ');
  return `MUST rules not judged: ${counted.length}${counted.length ? ` (${named})` : ''}${excused.length ? `; not counted: ${excused.length} (${counts})` : ''}.`;
}

const CAUSES: Record<string, string> = {
  declared: 'ruled out by what the target declares',
  unobservable: 'not observable on a running target',
  expected: 'named by the expectations',
  'not-selected': 'not selected',
  precondition: 'a failed precondition',
  machine: 'could not be checked here',
  skipped: 'skipped',
  untested: 'no test ran',
  stopped: 'the run stopped first',
};

/** Says what narrowed the run, if anything: its verdicts are of the rules it selected only. */
export function narrowedLine(report: ConformanceReport): string | undefined {
  const narrowed = report.run.narrowed ?? [];
  if (narrowed.length === 0) return undefined;
  const unselected = report.rules.filter((r) => r.verdict === 'not-run' && r.tests.length === 0);
  return `Narrowed run (${narrowed.join(' ')}): ${unselected.length} rules in scope not selected (${unselected.filter((r) => r.level === 'MUST').length} MUST), ${report.summary.outOfScope} out of scope; the verdicts are of the rules selected only.`;
}

/** What the comparison with --baseline found; a narrowed run compared only the rules it selected. */
function baselineLine(report: ConformanceReport): string | undefined {
  const baseline = report.summary.baseline;
  if (!baseline) return undefined;
  const lost = baseline.lost ?? [];
  return `Against ${baseline.file}: ${baseline.regressions.length} regressions, ${lost.length} verdicts lost (${lost.filter((c) => c.level === 'MUST').length} MUST), ${baseline.fixes.length} fixed${notComparedNote(report)}.`;
}

/** Of a narrowed run compared with a baseline: that the rules it did not select were not compared. */
export function notComparedNote(report: ConformanceReport): string {
  const left = report.rules.filter((r) => notSelected(report, r)).length;
  return left > 0 ? ` (only the rules this narrowed run selected are compared: ${left} not selected)` : '';
}

function firstFailure(rule: RuleResult): { title: string; error: string } {
  const test = rule.tests.find((t) => t.status === 'failed' || t.status === 'timedOut' || t.status === 'error');
  return { title: test?.title ?? '', error: wholeMessage(test?.error ?? '') };
}

export function consoleSummary(report: ConformanceReport, htmlPath: string, options: ConsoleOptions = {}): string[] {
  const s = report.summary;
  // No test ran: there are no verdicts to count, only why.
  if (report.run.status === 'not-started')
    return [`Result: ${s.gate.passed ? 'passed' : 'failed'} (exit ${s.gate.exitCode}): ${s.gate.reasons.join('; ')}.`, `Report: ${htmlPath}`];
  const lines: string[] = [];
  if (!options.quiet) {
    lines.push(
      `Conformance: ${s.rules} rules in scope${s.outOfScope ? ` (${s.outOfScope} out of scope)` : ''}, ${s.covered} tested (${(s.coverage * 100).toFixed(1)}%): ` +
        `${s.verdicts.pass} pass, ${s.verdicts.fail} fail (${s.mustFailures} MUST, ${s.interpretationFailures} interpretations), ` +
        `${s.verdicts.error ? `${s.verdicts.error} not judged (target unreachable), ` : ''}` +
        `${s.verdicts.skipped} skipped, ${s.verdicts['not-tested']} not tested, ${s.verdicts.observed} observed` +
        (s.verdicts['not-run'] ? `, ${s.verdicts['not-run']} not run (${report.run.reason ?? 'not selected'})` : '') +
        '.',
    );
    if (s.unexpected) {
      const expected = report.rules.filter((r) => r.verdict === 'fail' && r.asExpected).length;
      lines.push(
        `Against the expectations: ${s.unexpected.length === 0 ? 'every verdict as expected' : `${s.unexpected.length} unexpected`}${expected ? `; ${expected} failures as expected` : ''}.`,
      );
    }
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
    const mark = { error: '?', unjudged: '∅' }[standingOf(report, rule).kind as string] ?? '✘';
    // A rule no test of which failed (a step it needs did, or none ran) is headed by why, never by an empty title.
    const [head, ...rest] = title ? [title, what] : what.split('\n');
    const details = [rest.join('\n'), error].filter(Boolean).flatMap((text) => text.split('\n'));
    lines.push(`  ${mark} ${rule.id} [${rule.level} §${rule.section}] ${head ?? ''}`.trimEnd(), ...details.map((l) => (l ? `      ${l}` : '')));
  }
  if (options.githubAnnotations) {
    for (const rule of rules) {
      const { title, error } = firstFailure(rule);
      const message = [standingOf(report, rule).why, title, error].filter(Boolean).join(': ');
      lines.push(`::error title=${property(`${rule.id} (${rule.level} §${rule.section})`)}::${data(`${rule.text} — ${message}`)}`);
    }
  }
  // Even quiet: what the verdicts cover and what went unjudged are part of the outcome.
  const narrowed = narrowedLine(report);
  if (narrowed) lines.push(narrowed);
  const retried = retriesLine(report);
  if (retried) lines.push(retried);
  const baseline = baselineLine(report);
  if (baseline) lines.push(baseline);
  lines.push(notJudgedLine(report));
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
