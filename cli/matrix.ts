// `matrix <report>... --out <dir>`: reports of several targets, and of one target over time, side by
// side as a static site (index.html), its data (matrix.json, specs/schemas/matrix.schema.json) and a
// summary (matrix.md).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ReportError } from '../reports/load.ts';
import { buildMatrix, type MatrixRun } from '../reports/matrix.ts';
import { loadMatrixRun } from '../reports/matrix-load.ts';
import { matrixMarkdown } from '../reports/matrix-markdown.ts';
import { matrixSite } from '../reports/matrix-site.ts';
import { TOOL } from '../harness/tool.ts';
import { EXIT, NAME, parseWithPositionals, UsageError, writableFolder } from './args.ts';

const MATRIX_HELP = `Usage: ${NAME} matrix <report folder or report.json>... --out <dir> [options]

Puts reports side by side: one row per rule (matched by id, so reports of older versions of
the tool, or of another catalogue, fit: a rule a report's catalogue lacks is 'absent' there,
never a failure) and one column per run. Reports of the same target name form its history,
in time order. Writes to <dir>:
  index.html   the site: opens from the file system or any static host, no server. The
               matrix with filters (plane, level, source, verdict, a search) and views (rules
               that differ across targets, that fail on all); a click on a cell shows that
               run's evidence (its tests, errors and exchanges), on a rule its history on each
               target; a score per target, the diff of any two runs, and the interop figure
               over the runs you tick. It links each run's report.html, relative to <dir>:
               publish the report folders inside <dir> for those links to work on a host.
  matrix.json  the same data, for other tools: every cell with its evidence in short, each
               target's history (the first and last run of each verdict), a score per run,
               the rules that differ across targets, those that fail on all, and the interop
               figure (the rules every target passes, in each target's latest run). Its
               schema: specs/schemas/matrix.schema.json.
  matrix.md    a summary for a pull request or a CI page: the scores, the interop figure, the
               rules that differ and those that fail on all.

A report holds no time: a run's time is its report file's modification time, unless --when
gives it (a CI artifact's file time is when it was downloaded).

Options:
  --out <dir>            where to write index.html, matrix.json and matrix.md (required)
  --title <text>         what the matrix is of, heading the site and matrix.md (e.g. "my-server
                         against the agent-server suites"); default "Conformance matrix"
  --when <report>=<time> the time of that report's run (ISO 8601, e.g. 2025-05-01 or
                         2025-05-01T12:00:00Z), <report> as given above; repeatable
  -h, --help             this help

Exit codes: 0 written; 2 a usage error, an unreadable report, or a report of another major
format version.`;

export async function matrix(args: string[]): Promise<number> {
  const { values, positionals } = parseWithPositionals(
    args,
    { out: { type: 'string' }, when: { type: 'string', multiple: true }, title: { type: 'string' } },
    1,
  );
  if (values.help) {
    console.log(MATRIX_HELP);
    return EXIT.ok;
  }
  if (!values.out) throw new UsageError('--out <dir> is required');
  const times = new Map<string, string>();
  for (const given of (values.when as string[] | undefined) ?? []) {
    const at = given.lastIndexOf('=');
    const report = given.slice(0, at);
    if (at < 0 || !positionals.includes(report)) throw new UsageError(`--when ${given}: expected <report>=<time>, <report> one of the reports given`);
    times.set(report, given.slice(at + 1));
  }
  const out = resolve(values.out as string);
  writableFolder(out, '--out');
  let runs: MatrixRun[];
  try {
    runs = positionals.map((path) => loadMatrixRun(path, out, times.get(path)));
  } catch (error) {
    if (error instanceof ReportError) throw new UsageError(error.message);
    throw error;
  }
  // A folder and its report.json, or two spellings of one path, are one run: it would be two columns of one history.
  const given = new Map<string, string>();
  for (const [i, { folder, file }] of runs.entries()) {
    const first = given.get(`${folder}/${file}`);
    if (first !== undefined) throw new UsageError(`${first} and ${positionals[i]} are the same report, given twice`);
    given.set(`${folder}/${file}`, positionals[i]);
  }
  const data = buildMatrix(runs, TOOL, values.title as string | undefined);
  writeFileSync(join(out, 'matrix.json'), `${JSON.stringify(data, null, 2)}\n`);
  writeFileSync(join(out, 'matrix.md'), `${matrixMarkdown(data)}\n`);
  writeFileSync(join(out, 'index.html'), matrixSite(data));
  const { interop } = data.views;
  console.log(
    `${NAME}: matrix of ${data.targets.length} target(s), ${data.columns.length} run(s), ${data.rows.length} rules in ${out} (index.html, matrix.json, matrix.md): ${interop.passed.length} of ${interop.inScope} rules pass on every target; ${data.views.differs.length} differ`,
  );
  return EXIT.ok;
}
