// The interop matrix: several reports side by side, one row per rule (matched by id) and one column
// per target run, with each target's history, a score per run and the views across targets. Plain
// data (its JSON Schema is specs/schemas/matrix.schema.json): the Markdown summary and the static
// site read only this. Each cell carries its evidence in short (tests, errors, the exchanges' lines);
// the bodies stay in the reports, whose folders the columns name.
import type { Plane, RuleLevel, RuleSource } from '../specs/contract.ts';
import type { ConformanceReport, ConformanceRunOutcome, RecordedExchange, RuleResult, TestOutcome, Verdict } from './conformance-report.ts';

/** The matrix format's version: a reader refuses another major version; a new minor version only adds. */
const MATRIX_VERSION = '1.0';

/** A rule's verdict in one run, or `absent`: that run's catalogue has no such rule (added or retired since), never a failure. */
export type Cell = Verdict | 'absent';

/** One report to place in the matrix, as the loader (matrix-load.ts) found it. */
export interface MatrixRun {
  report: ConformanceReport;
  /** The report's folder, relative to the matrix's folder ('/' separated), where its evidence is. */
  folder: string;
  /** The report's file name in that folder (report.json unless the caller named another file). */
  file: string;
  /** When the run was taken (ISO 8601): the report holds no time of its own. */
  when: string;
  /** Where `when` came from: the report file's modification time, or the caller. */
  whenFrom: 'file-time' | 'given';
  /** The report's HTML page, relative to the matrix's folder, when it is beside the report. */
  html?: string;
}

/** Rules of one kind in one run: passed out of judged (pass or fail), the rest counted apart. */
export interface Score {
  passed: number;
  judged: number;
  /** In scope with no pass or fail: error, skipped, not-tested, not-run, observed. */
  notJudged: number;
  /** Of a plane the run did not cover, or left out by what narrowed it. */
  outOfScope: number;
}

export interface Column {
  /** c1, c2… in the matrix's column order. */
  id: string;
  target: string;
  kind: string;
  toolVersion: string;
  reportVersion: string;
  seed: string;
  profile: string;
  when: string;
  whenFrom: MatrixRun['whenFrom'];
  status: ConformanceRunOutcome['status'];
  /** What narrowed the run (--plane, --grep…), empty for a whole run. */
  narrowed: string[];
  folder: string;
  file: string;
  html?: string;
  /** MUST and SHOULD rules of the spec and the service; interpretations (our reading) apart. */
  score: { must: Score; should: Score; interpretation: Score };
}

/** An exchange of a test, in one line: the report has its headers and bodies. */
export interface ExchangeLine {
  id: string;
  method: string;
  /** The path and query (a webhook delivery: the receiver's path). */
  url: string;
  /** 0 when no answer came (see error). */
  status: number;
  /** The exchange the failure names. */
  failed?: true;
  delivery?: true;
  error?: string;
}

/** One test of a rule in one run, as much as the site shows of it. */
export interface TestEvidence {
  title: string;
  file: string;
  status: TestOutcome['status'];
  /** The failure message, clipped (the report has it whole). */
  error?: string;
  /** Why it was skipped or did not run. */
  reason?: string;
  /** Its exchanges, the one the failure names always among them; at most MAX_EXCHANGES. */
  exchanges: ExchangeLine[];
  /** How many more exchanges the test made (in the report). */
  moreExchanges?: number;
}

/** What a run shows of a rule: its tests, or why it has none. */
export interface CellEvidence {
  reason?: string;
  tests: TestEvidence[];
}

/** The first and last column (ids, in time order) where a rule had a given verdict in one target's history. */
interface Span {
  first: string;
  last: string;
}

export interface Row {
  id: string;
  level: RuleLevel;
  plane: Plane;
  section: string;
  /** Absent when the newest report with the rule predates sources (format 1.0). */
  source?: RuleSource;
  text: string;
  /**
   * Which catalogues have the rule, over all columns in time order: every one; added (only the
   * newer ones); retired (only the older ones); some (neither pattern).
   */
  catalogue: 'every' | 'added' | 'retired' | 'some';
  cells: Record<string, Cell>;
  /**
   * Columns of narrowed runs (--plane, --grep…) that left the rule out: its `not-run` there is no
   * verdict on the target, so the interop figure and the differs view count it out of scope.
   */
  unselected: string[];
  /** Per column where the catalogue has the rule. */
  evidence: Record<string, CellEvidence>;
  /** Per target, per verdict it had: its first and last run with that verdict. */
  history: Record<string, Partial<Record<Cell, Span>>>;
}

export interface Matrix {
  matrixVersion: string;
  /** What the matrix is of, as `matrix --title` gave it (the site and the summary are headed with it). */
  title?: string;
  tool: { name: string; version: string };
  columns: Column[];
  /** Each target's columns in time order: its history, the last one its latest run. */
  targets: { name: string; columns: string[] }[];
  rows: Row[];
  /** Over the latest column of each target. */
  views: {
    /** Rules in scope on at least two targets whose verdicts there differ. */
    differs: string[];
    /** Rules that fail on every target. */
    failsOnAll: string[];
    /** Rules every target passes, out of those in scope on every target. */
    interop: { columns: string[]; passed: string[]; inScope: number };
  };
}

/** Characters of a failure message kept, and exchanges listed per test: a whole run adds about 0.6 MB to the site. */
const MAX_ERROR_CHARS = 4000;
const MAX_EXCHANGES = 40;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters in the report)` : text);

function exchangeLine(id: string, exchange: RecordedExchange | undefined, failed: boolean): ExchangeLine {
  return {
    id,
    method: exchange?.request.method ?? '?',
    url: exchange?.request.url ?? '(not in the report)',
    status: exchange?.response.status ?? 0,
    ...(failed ? { failed: true as const } : {}),
    ...(exchange?.delivery ? { delivery: true as const } : {}),
    ...(exchange?.error ? { error: clip(exchange.error, 500) } : {}),
  };
}

function testEvidence(test: TestOutcome, exchanges: ConformanceReport['exchanges']): TestEvidence {
  // The exchange the failure names is listed even when it is past the first MAX_EXCHANGES.
  const listed = test.exchanges.slice(0, MAX_EXCHANGES);
  if (test.failedExchange && !listed.includes(test.failedExchange)) listed.splice(MAX_EXCHANGES - 1, 1, test.failedExchange);
  return {
    title: test.title,
    file: test.file,
    status: test.status,
    ...(test.error ? { error: clip(test.error, MAX_ERROR_CHARS) } : {}),
    ...(test.reason ? { reason: test.reason } : {}),
    exchanges: listed.map((id) => exchangeLine(id, exchanges[id], id === test.failedExchange)),
    ...(test.exchanges.length > listed.length ? { moreExchanges: test.exchanges.length - listed.length } : {}),
  };
}

function cellEvidence(rule: RuleResult, report: ConformanceReport): CellEvidence {
  return { ...(rule.reason ? { reason: rule.reason } : {}), tests: rule.tests.map((t) => testEvidence(t, report.exchanges)) };
}

/** The rule was left out by what narrowed a complete run (no test selected), as reports/build.ts says `not selected`. */
const isUnselected = (rule: RuleResult, report: ConformanceReport) =>
  rule.verdict === 'not-run' && rule.tests.length === 0 && report.run.status === 'complete' && (report.run.narrowed ?? []).length > 0;

const emptyScore = (): Score => ({ passed: 0, judged: 0, notJudged: 0, outOfScope: 0 });

/** `sources`: the newest source known of each rule, for a report that names none (format 1.0), so its interpretations are counted apart too. */
function scoreOf(report: ConformanceReport, sources: Map<string, RuleSource>): Column['score'] {
  const score = { must: emptyScore(), should: emptyScore(), interpretation: emptyScore() };
  for (const rule of report.rules) {
    const source = rule.source ?? sources.get(rule.id);
    const kind = source === 'interpretation' ? 'interpretation' : rule.level === 'MUST' ? 'must' : rule.level === 'SHOULD' ? 'should' : undefined;
    if (!kind) continue;
    const s = score[kind];
    if (rule.verdict === 'pass' || rule.verdict === 'fail') {
      s.judged++;
      if (rule.verdict === 'pass') s.passed++;
    } else if (rule.verdict === 'out-of-scope' || isUnselected(rule, report)) s.outOfScope++;
    else s.notJudged++;
  }
  return score;
}

/** The runs in time order (the given order among equal times). */
const byTime = <T extends { when: string }>(items: T[]): T[] => [...items].sort((a, b) => (a.when < b.when ? -1 : a.when > b.when ? 1 : 0));

function catalogueOf(present: boolean[]): Row['catalogue'] {
  const first = present.indexOf(true);
  const last = present.lastIndexOf(true);
  const solid = present.slice(first, last + 1).every(Boolean);
  if (first === 0 && last === present.length - 1 && solid) return 'every';
  if (solid && last === present.length - 1) return 'added';
  if (solid && first === 0) return 'retired';
  return 'some';
}

export function buildMatrix(runs: MatrixRun[], tool: { name: string; version: string }, title?: string): Matrix {
  // Columns grouped by target (in the order the targets first come), each target's in time order.
  const targetNames = [...new Set(runs.map((r) => r.report.target.name))];
  const ordered = targetNames.flatMap((name) => byTime(runs.filter((r) => r.report.target.name === name)));
  // Each rule's source in the newest report that names it (format 1.0 named none).
  const sources = new Map(byTime(runs).flatMap((run) => run.report.rules.flatMap((rule) => (rule.source ? [[rule.id, rule.source] as const] : []))));
  const columns: Column[] = ordered.map((run, i) => ({
    id: `c${i + 1}`,
    target: run.report.target.name,
    kind: run.report.target.kind,
    toolVersion: run.report.tool.version,
    reportVersion: run.report.reportVersion,
    seed: run.report.seed,
    profile: run.report.run.profile,
    when: run.when,
    whenFrom: run.whenFrom,
    status: run.report.run.status,
    narrowed: run.report.run.narrowed ?? [],
    folder: run.folder,
    file: run.file,
    ...(run.html ? { html: run.html } : {}),
    score: scoreOf(run.report, sources),
  }));
  const rulesOf = ordered.map((run) => new Map(run.report.rules.map((r) => [r.id, r])));
  const targets = targetNames.map((name) => ({ name, columns: columns.filter((c) => c.target === name).map((c) => c.id) }));
  // Every column's index in time order across targets: for the newest text and the catalogue's story.
  const timeline = byTime(columns.map((c, index) => ({ when: c.when, index }))).map((t) => t.index);

  const ids = [...new Set(rulesOf.flatMap((rules) => [...rules.keys()]))];
  const rows: Row[] = ids.map((id) => {
    const newest = timeline.flatMap((i) => rulesOf[i].get(id) ?? []).at(-1)!;
    const cells = Object.fromEntries(columns.map((c, i) => [c.id, rulesOf[i].get(id)?.verdict ?? 'absent'])) as Record<string, Cell>;
    const history = Object.fromEntries(
      targets.map((target) => {
        const spans: Partial<Record<Cell, Span>> = {};
        for (const column of target.columns) {
          const cell = cells[column];
          spans[cell] = { first: spans[cell]?.first ?? column, last: column };
        }
        return [target.name, spans];
      }),
    );
    return {
      id,
      level: newest.level,
      plane: newest.plane,
      section: newest.section,
      ...(newest.source ? { source: newest.source } : {}),
      text: newest.text,
      catalogue: catalogueOf(timeline.map((i) => rulesOf[i].has(id))),
      cells,
      unselected: columns.flatMap((c, i) => {
        const rule = rulesOf[i].get(id);
        return rule && isUnselected(rule, ordered[i].report) ? [c.id] : [];
      }),
      evidence: Object.fromEntries(
        columns.flatMap((c, i) => {
          const rule = rulesOf[i].get(id);
          return rule ? [[c.id, cellEvidence(rule, ordered[i].report)]] : [];
        }),
      ),
      history,
    };
  });

  const latest = targets.map((t) => t.columns.at(-1)!);
  const latestCells = (row: Row) => latest.map((c) => (row.unselected.includes(c) ? 'unselected' : row.cells[c]));
  const inScope = (cell: Cell | 'unselected') => cell !== 'absent' && cell !== 'out-of-scope' && cell !== 'unselected';
  return {
    matrixVersion: MATRIX_VERSION,
    ...(title ? { title } : {}),
    tool,
    columns,
    targets,
    rows,
    views: {
      differs: rows.filter((row) => new Set(latestCells(row).filter(inScope)).size > 1).map((r) => r.id),
      failsOnAll: rows.filter((row) => latestCells(row).every((c) => c === 'fail')).map((r) => r.id),
      interop: {
        columns: latest,
        passed: rows.filter((row) => latestCells(row).every((c) => c === 'pass')).map((r) => r.id),
        inScope: rows.filter((row) => latestCells(row).every(inScope)).length,
      },
    },
  };
}
