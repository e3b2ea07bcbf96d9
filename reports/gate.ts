// The run's outcome for CI, decided once from the report: every format states it, and the
// command line exits with it. In order of precedence:
//   130 interrupted (Ctrl-C, SIGTERM)
//   2   the run stopped before any test, or the target stopped answering (a partial report)
//   1   a MUST rule failed (never an interpretation; with expectations: a verdict differs from them), a MUST
//       rule in scope was not judged for a reason the target did not declare, a baseline regression, or a
//       test tagged with an unknown rule
//   2   rules that could not be judged (the target did not answer their tests, or this machine or what the target holds could not
//       make the check)
//   3   --max-duration stopped the run
//   0   otherwise
import type { ConformanceReport, Gate } from './conformance-report.ts';

const EXIT_CODES = { ok: 0, failed: 1, unjudged: 2, incomplete: 3, interrupted: 130 } as const;

type Unjudged = Omit<ConformanceReport, 'summary'> & { summary: Omit<ConformanceReport['summary'], 'gate'> };

export function gateOf(report: Unjudged): Gate {
  const s = report.summary;
  const list = (ids: string[]) => `${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ` and ${ids.length - 8} more` : ''}`;
  // [precedence, exit code, reason]
  const found: [number, number, string][] = [];
  if (report.run.status === 'interrupted') found.push([0, EXIT_CODES.interrupted, report.run.reason ?? 'interrupted']);
  if (report.run.status === 'not-started') found.push([1, EXIT_CODES.unjudged, `no test ran: ${report.run.reason ?? 'the run stopped before any test'}`]);
  if (report.run.status === 'target-unreachable') found.push([1, EXIT_CODES.unjudged, report.run.reason ?? 'the target stopped answering']);
  if (s.unexpected) {
    if (s.unexpected.length > 0) found.push([2, EXIT_CODES.failed, `${s.unexpected.length} verdicts differ from the expectations: ${list(s.unexpected)}`]);
  } else {
    // An interpretation is our reading, not the spec's: it never fails the MUST level (the catalogue makes it SHOULD at most).
    const must = report.rules.filter((r) => r.level === 'MUST' && r.source !== 'interpretation' && r.verdict === 'fail').map((r) => r.id);
    if (must.length > 0) found.push([2, EXIT_CODES.failed, `${must.length} MUST rules failed: ${list(must)}`]);
  }
  const regressions = s.baseline?.regressions ?? [];
  if (regressions.length > 0)
    found.push([2, EXIT_CODES.failed, `${regressions.length} regressions against ${s.baseline!.file}: ${list(regressions.map((c) => c.id))}`]);
  const notJudged = s.mustNotJudged.filter((n) => n.counted && n.cause !== 'stopped');
  const byMachine = notJudged.filter((n) => n.cause === 'machine').map((n) => n.id);
  const unjudged = notJudged.filter((n) => n.cause !== 'machine').map((n) => n.id);
  if (unjudged.length > 0) found.push([2, EXIT_CODES.failed, `${unjudged.length} MUST rules were not judged: ${list(unjudged)}`]);
  if (byMachine.length > 0)
    found.push([
      3,
      EXIT_CODES.unjudged,
      `${byMachine.length} MUST rules could not be judged here (this machine, or what the target holds, could not make the check): ${list(byMachine)}`,
    ]);
  if (report.unknownRuleTags.length > 0)
    found.push([2, EXIT_CODES.failed, `tests are tagged with rules not in the catalogue: ${list(report.unknownRuleTags.map((u) => u.tag))}`]);
  const errors = report.rules.filter((r) => r.verdict === 'error').map((r) => r.id);
  if (errors.length > 0)
    found.push([3, EXIT_CODES.unjudged, `${errors.length} rules could not be judged, the target did not answer their tests: ${list(errors)}`]);
  if (report.run.status === 'timed-out') found.push([4, EXIT_CODES.incomplete, report.run.reason ?? 'the run reached --max-duration']);
  if (found.length === 0) {
    const narrowed = report.run.narrowed?.length ? ` among the rules selected (narrowed by ${report.run.narrowed.join(' ')})` : '';
    return {
      exitCode: EXIT_CODES.ok,
      passed: true,
      reasons: [`${s.unexpected ? 'every verdict as expected' : 'no MUST rule failed or went unjudged'}${narrowed}`],
    };
  }
  found.sort((a, b) => a[0] - b[0]);
  return { exitCode: found[0][1], passed: false, reasons: found.map(([, , reason]) => reason) };
}
