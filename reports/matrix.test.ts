// The matrix of made-up reports: two targets, one with two runs whose newer catalogue adds a rule;
// its cells, each target's history, the scores, the views across targets, the schema and the Markdown.
import { expect, test } from '@playwright/test';
import type { Plane, Rule } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import type { TestOutcome } from './conformance-report.ts';
import { buildMatrix, type MatrixRun } from './matrix.ts';
import { matrixProblems } from './matrix-load.ts';
import { matrixMarkdown } from './matrix-markdown.ts';

const rule = (id: string, level: Rule['level'], source: Rule['source'] = 'spec', plane: Plane = 'agent-server'): Rule => ({
  id,
  level,
  source,
  plane,
  area: 'threads',
  section: '4.5',
  text: `${id} text`,
});
const CATALOGUE = [
  rule('R-A', 'MUST'),
  rule('R-B', 'MUST'),
  rule('R-C', 'SHOULD'),
  rule('R-I', 'MUST', 'interpretation'),
  rule('R-P', 'MUST', 'spec', 'platform-api'),
];
/** Added by the newer catalogue. */
const ADDED = rule('R-NEW', 'MUST');

/** A run of `target` at `when`, its rules' tests ended as given (a rule without a status has no test). */
function run(target: string, when: string, statuses: Record<string, TestOutcome['status']>, rules = CATALOGUE, scope?: Plane[]): MatrixRun {
  const report = buildReport({
    rules,
    tests: Object.entries(statuses).map(([id, status]) => ({
      outcome: { id, title: id, file: 'x.spec.ts', status, observed: [], exchanges: [] },
      ruleIds: [id],
    })),
    exchanges: [],
    target: { name: target, kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: rules.includes(ADDED) ? '0.2.0' : '0.1.0' },
    scope,
  });
  return { report, folder: `${target}/${when}`, file: 'report.json', when: `${when}T00:00:00.000Z`, whenFrom: 'given' };
}

// Given out of time order: the matrix orders each target's runs by time.
const RUNS = [
  run('alpha', '2025-02-01', { 'R-A': 'passed', 'R-B': 'passed', 'R-C': 'failed', 'R-I': 'failed', 'R-P': 'passed', 'R-NEW': 'failed' }, [...CATALOGUE, ADDED]),
  run('beta', '2025-01-15', { 'R-A': 'passed', 'R-B': 'failed', 'R-C': 'failed', 'R-I': 'passed' }, CATALOGUE, ['agent-server']),
  run('alpha', '2025-01-01', { 'R-A': 'passed', 'R-B': 'failed', 'R-C': 'failed', 'R-I': 'failed', 'R-P': 'skipped' }),
];
const matrix = buildMatrix(RUNS, { name: 'x', version: '0.2.0' });
const row = (id: string) => matrix.rows.find((r) => r.id === id)!;

test('one column per run, grouped by target and in time order, saying where its report and time came from', () => {
  expect(matrix.columns.map((c) => `${c.id} ${c.target} ${c.when.slice(0, 10)} ${c.toolVersion}`)).toEqual([
    'c1 alpha 2025-01-01 0.1.0',
    'c2 alpha 2025-02-01 0.2.0',
    'c3 beta 2025-01-15 0.1.0',
  ]);
  expect(matrix.targets).toEqual([
    { name: 'alpha', columns: ['c1', 'c2'] },
    { name: 'beta', columns: ['c3'] },
  ]);
  expect(matrix.columns[0]).toMatchObject({ folder: 'alpha/2025-01-01', file: 'report.json', whenFrom: 'given', status: 'complete', narrowed: [], seed: '1' });
});

test('a rule the older catalogue lacks is absent there, not failed, and is marked added', () => {
  expect(row('R-NEW').cells).toEqual({ c1: 'absent', c2: 'fail', c3: 'absent' });
  // Added in the newest run (c2, February); beta's run of January has the old catalogue.
  expect(row('R-NEW').catalogue).toBe('added');
  expect(row('R-A').catalogue).toBe('every');
  expect(matrix.columns[0].score.must, 'absent is not counted in the older run').toEqual({ passed: 1, judged: 2, notJudged: 1, outOfScope: 0 });
  const retired = buildMatrix([RUNS[2], run('alpha', '2025-03-01', {}, CATALOGUE.slice(1))], { name: 'x', version: '0' });
  expect(retired.rows.find((r) => r.id === 'R-A')?.catalogue).toBe('retired');
});

test("each target's history: the first and last run of each verdict of a rule", () => {
  expect(row('R-B').history).toEqual({
    alpha: { fail: { first: 'c1', last: 'c1' }, pass: { first: 'c2', last: 'c2' } },
    beta: { fail: { first: 'c3', last: 'c3' } },
  });
  expect(row('R-A').history.alpha).toEqual({ pass: { first: 'c1', last: 'c2' } });
  expect(row('R-NEW').history.alpha).toEqual({ absent: { first: 'c1', last: 'c1' }, fail: { first: 'c2', last: 'c2' } });
});

test('a score per run: MUST and SHOULD rules passed out of those judged, not judged and out of scope apart, interpretations apart', () => {
  const [, alpha2, beta] = matrix.columns;
  expect(alpha2.score).toEqual({
    must: { passed: 3, judged: 4, notJudged: 0, outOfScope: 0 },
    should: { passed: 0, judged: 1, notJudged: 0, outOfScope: 0 },
    interpretation: { passed: 0, judged: 1, notJudged: 0, outOfScope: 0 },
  });
  expect(beta.score.must, 'the platform API rule is of a plane beta did not cover').toEqual({ passed: 1, judged: 2, notJudged: 0, outOfScope: 1 });
  expect(beta.score.interpretation.passed).toBe(1);
});

test("views over each target's latest run: differs, fails on all, and the rules every target passes", () => {
  expect(matrix.views.interop.columns).toEqual(['c2', 'c3']);
  // R-B: pass on alpha, fail on beta; R-I likewise reversed. R-P is out of scope on beta: no difference.
  // R-NEW is absent from beta's catalogue: no difference either.
  expect(matrix.views.differs).toEqual(['R-B', 'R-I']);
  expect(matrix.views.failsOnAll).toEqual(['R-C']);
  expect(matrix.views.interop.passed).toEqual(['R-A']);
  expect(matrix.views.interop.inScope, 'R-A, R-B, R-C, R-I: in the catalogue and scope of both').toBe(4);
  expect(row('R-A')).toMatchObject({ level: 'MUST', plane: 'agent-server', section: '4.5', source: 'spec', text: 'R-A text' });
});

test('the matrix is valid against its schema, which refuses a column cell that is no verdict', () => {
  expect(matrixProblems(JSON.parse(JSON.stringify(matrix)))).toEqual([]);
  const broken = structuredClone(matrix);
  (broken.rows[0].cells as Record<string, string>).c1 = 'failed';
  expect(matrixProblems(broken).join('\n')).toMatch(/\/rows\/0\/cells\/c1/);
  expect(matrixProblems({ ...matrix, matrixVersion: '2.0' })).toEqual(['/matrixVersion must match pattern "^1\\.[0-9]+$"']);
});

test('the Markdown summary: interop figure, a score line per target, the rules that differ and fail on all', () => {
  const markdown = matrixMarkdown(matrix);
  expect(markdown).toMatch(
    /^## Conformance matrix: 2 targets, 3 runs\n\n\*\*Interop: 1 of 4 rules \(25%\) pass on every target\*\*.* · 2 differ across targets · 1 fail on all/,
  );
  expect(markdown).toContain('| alpha | url | 2025-02-01 00:00, tool 0.2.0, seed 1 | 2 | 3/4 (75%) | 0/1 (0%) | 0 | 0/1 (0%) |');
  expect(markdown).toContain('| beta | url | 2025-01-15 00:00, tool 0.1.0, seed 1 | 1 | 1/2 (50%) | 0/1 (0%) | 0 | 1/1 (100%) |');
  expect(markdown).toMatch(
    /### Differs across targets \(2\)\n\n\| rule \| level \| plane \| alpha \| beta \|\n\|---\|---\|---\|---\|---\|\n\| R-B \| MUST \| agent-server \| pass \| fail \|/,
  );
  expect(markdown).toMatch(/### Fails on all targets \(1\)\n\n[^#]*\| R-C \| SHOULD \| agent-server \| fail \| fail \|/);
});

test("a cell's evidence: its tests, the failure clipped, the exchanges listed up to a bound with the one the failure names among them", () => {
  const exchanges = Array.from({ length: 50 }, (_, i) => ({
    id: `agent-server-${i + 1}`,
    plane: 'agent-server' as const,
    request: { method: 'GET', url: `/threads/${i + 1}`, headers: [] },
    response: { status: i === 44 ? 500 : 200, headers: [] },
    violations: [],
  }));
  const report = buildReport({
    rules: CATALOGUE,
    tests: [
      {
        outcome: {
          id: 't',
          title: 'R-A is checked',
          file: 'x.spec.ts',
          status: 'failed',
          error: `expected 200 ${'x'.repeat(5000)}`,
          failedExchange: 'agent-server-45',
          observed: [],
          exchanges: exchanges.map((e) => e.id),
        },
        ruleIds: ['R-A'],
      },
    ],
    exchanges,
    target: { name: 'alpha', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0.1.0' },
  });
  const one = buildMatrix([{ report, folder: '.', file: 'report.json', when: '2025-01-01T00:00:00.000Z', whenFrom: 'given' }], { name: 'x', version: '0' });
  const [evidence] = one.rows.find((r) => r.id === 'R-A')!.evidence.c1.tests;
  expect(evidence.exchanges).toHaveLength(40);
  expect(evidence.exchanges.at(-1)).toEqual({ id: 'agent-server-45', method: 'GET', url: '/threads/45', status: 500, failed: true });
  expect(evidence.moreExchanges).toBe(10);
  expect(evidence.error).toMatch(/^expected 200 x+… \(1013 more characters in the report\)$/);
  expect(one.rows.find((r) => r.id === 'R-B')!.evidence.c1, 'a rule the run has no test of').toEqual({ tests: [] });
});

test('a report of format 1.0 names no sources: its interpretations are counted apart by the newest source known', () => {
  const old = run('alpha', '2024-12-01', { 'R-A': 'passed', 'R-B': 'passed', 'R-C': 'passed', 'R-I': 'failed', 'R-P': 'passed' });
  for (const rule of old.report.rules) delete (rule as { source?: string }).source;
  const withOld = buildMatrix([old, RUNS[0]], { name: 'x', version: '0' });
  expect(withOld.columns[0].score.must, 'R-I, a MUST of our reading, is not among the MUST rules').toEqual({
    passed: 3,
    judged: 3,
    notJudged: 0,
    outOfScope: 0,
  });
  expect(withOld.columns[0].score.interpretation).toEqual({ passed: 0, judged: 1, notJudged: 0, outOfScope: 0 });
});
