// `compare OLD NEW`: two reports rule by rule, as Markdown (a pull-request comment) or JSON.
import { writeFileSync } from 'node:fs';
import { type Comparison, compareReports, comparisonMarkdown, comparisonSummary } from '../reports/compare.ts';
import { loadReport, ReportError } from '../reports/load.ts';
import { EXIT, NAME, parseWithPositionals, UsageError } from './args.ts';

const COMPARE_HELP = `Usage: ${NAME} compare <old> <new> [options]

Compares two reports (report.json files, or the folders holding them) rule by rule: the
regressions (rules that fail now and did not, or that passed and are gone), the lost
verdicts (rules judged before, skipped, not run or not tested now), the fixes, the rules
that pass against their expectations, and every verdict that changed.

Options:
  --format <f>          markdown (default, for a pull-request comment) or json
  --out <file>          write there instead of to standard output, and print one line
                        of what was found
  -h, --help            this help

Exit codes: 0 no regression and no MUST verdict lost; 1 a regression, or a MUST rule judged
before and not now; 2 a usage error, an unreadable report, or the report of a run that stopped
before any test (it has no verdicts).`;

export async function compare(args: string[]): Promise<number> {
  const { values, positionals } = parseWithPositionals(args, { format: { type: 'string' }, out: { type: 'string' } }, 2);
  if (values.help) {
    console.log(COMPARE_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 2) throw new UsageError(`compare takes two reports, got ${positionals.length}`);
  const format = (values.format as string | undefined) ?? 'markdown';
  if (format !== 'markdown' && format !== 'json') throw new UsageError(`--format must be markdown or json, got '${format}'`);
  const [oldPath, newPath] = positionals;
  let comparison: Comparison | undefined;
  try {
    const [before, after] = [oldPath, newPath].map((path) => {
      const report = loadReport(path);
      // A run that stopped before any test has no verdict: comparing it would show every rule as lost.
      if (report.run.status === 'not-started')
        throw new ReportError(`${path}: no test ran in that run (${report.run.reason}), so it has no verdicts to compare`);
      return report;
    });
    comparison = compareReports(before, after);
  } catch (error) {
    if (error instanceof ReportError) throw new UsageError(error.message);
    throw error;
  }
  const text =
    format === 'json'
      ? `${JSON.stringify({ old: oldPath, new: newPath, ...comparison }, null, 2)}\n`
      : `${comparisonMarkdown(comparison, { before: oldPath, after: newPath })}\n`;
  const lostMust = comparison.lost.some((c) => c.level === 'MUST');
  const code = comparison.regressions.length > 0 || lostMust ? EXIT.failed : EXIT.ok;
  if (!values.out) {
    process.stdout.write(text);
    return code;
  }
  try {
    writeFileSync(values.out as string, text);
  } catch (error) {
    throw new UsageError(`--out: cannot write ${values.out as string}: ${(error as Error).message}`);
  }
  // The file is for a pull-request comment; a CI log still says what was found, and why the exit code.
  const why = code === EXIT.ok ? '' : comparison.regressions.length > 0 ? ': a regression' : ': a MUST verdict lost';
  console.log(`${newPath} against ${oldPath}: ${comparisonSummary(comparison)}. Written to ${values.out as string} (exit ${code}${why}).`);
  return code;
}
