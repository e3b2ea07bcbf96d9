// The matrix in short, as Markdown for a pull request or a CI page: each target's score (its latest
// run), the interop figure, the rules whose verdicts differ across targets and those that fail on
// all. Written from the matrix data alone, as a site would be.
import type { Column, Matrix, Row, Score } from './matrix.ts';

/** Lists longer than this are cut (matrix.json has them all): a pull-request comment has a size limit. */
const MAX_LISTED = 100;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const percent = (part: number, whole: number) => (whole === 0 ? '–' : `${Math.round((part / whole) * 1000) / 10}%`);
const fraction = (s: Score) => `${s.passed}/${s.judged} (${percent(s.passed, s.judged)})`;

function runLabel(column: Column): string {
  const status = column.status === 'complete' ? '' : `, **${column.status}**`;
  const narrowed = column.narrowed.length > 0 ? `, narrowed by ${column.narrowed.join(' ')}` : '';
  return `${column.when.slice(0, 16).replace('T', ' ')}${column.whenFrom === 'file-time' ? ' (file time)' : ''}, tool ${column.toolVersion}, seed ${column.seed}${status}${narrowed}`;
}

function ruleTable(title: string, ids: string[], rows: Map<string, Row>, columns: Column[]): string[] {
  if (ids.length === 0) return [];
  const listed = ids.slice(0, MAX_LISTED);
  return [
    `### ${title} (${ids.length})`,
    '',
    `| rule | level | plane | ${columns.map((c) => cell(c.target)).join(' | ')} |`,
    `|---|---|---|${columns.map(() => '---|').join('')}`,
    ...listed.map((id) => {
      const row = rows.get(id)!;
      return `| ${id} | ${row.level} | ${row.plane} | ${columns.map((c) => row.cells[c.id]).join(' | ')} |`;
    }),
    ...(ids.length > listed.length ? ['', `…and ${ids.length - listed.length} more (matrix.json has them all).`] : []),
    '',
  ];
}

export function matrixMarkdown(matrix: Matrix): string {
  const columns = new Map(matrix.columns.map((c) => [c.id, c]));
  const rows = new Map(matrix.rows.map((r) => [r.id, r]));
  const latest = matrix.views.interop.columns.map((id) => columns.get(id)!);
  const { interop } = matrix.views;
  const scores = matrix.targets.map(({ name, columns: history }) => {
    const last = columns.get(history.at(-1)!)!;
    const { must, should, interpretation } = last.score;
    const notJudged = must.notJudged + should.notJudged;
    return `| ${cell(name)} | ${cell(last.kind)} | ${cell(runLabel(last))} | ${history.length} | ${fraction(must)} | ${fraction(should)} | ${notJudged} | ${fraction(interpretation)} |`;
  });
  return [
    `## ${cell(matrix.title ?? 'Conformance matrix')}: ${matrix.targets.length} target${matrix.targets.length === 1 ? '' : 's'}, ${matrix.columns.length} run${matrix.columns.length === 1 ? '' : 's'}`,
    '',
    `**Interop: ${interop.passed.length} of ${interop.inScope} rules (${percent(interop.passed.length, interop.inScope)}) pass on every target** (of the rules in scope on every target, in each target’s latest run) · ${matrix.views.differs.length} differ across targets · ${matrix.views.failsOnAll.length} fail on all`,
    '',
    'Scores: rules passed out of those judged (pass or fail), in each target’s latest run; MUST and SHOULD rules of the spec and the service, interpretations (our reading) apart; not judged: MUST and SHOULD rules in scope with neither verdict.',
    '',
    '| target | kind | latest run | runs | MUST | SHOULD | not judged | interpretations |',
    '|---|---|---|---|---|---|---|---|',
    ...scores,
    '',
    ...ruleTable('Differs across targets', matrix.views.differs, rows, latest),
    ...ruleTable('Fails on all targets', matrix.views.failsOnAll, rows, latest),
  ].join('\n');
}
