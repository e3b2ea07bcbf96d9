// `matrix` on real report folders: two runs of the embedded simulator (two seeds, two selections)
// make one target's history; matrix.json is valid against its schema and matrix.md names the scores.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Matrix } from '../reports/matrix.ts';
import { matrixProblems } from '../reports/matrix-load.ts';
import { conformanceRun, runCli } from '../tests/self-test/run-cli.ts';

test('matrix of two runs of the embedded simulator: matrix.json valid with its history and scores, matrix.md naming them', async () => {
  const [threads, runs] = await Promise.all([
    conformanceRun(['--seed', '1', '--plane', 'agent-server', '--grep', '@THREAD-', '--quiet']),
    conformanceRun(['--seed', '2', '--plane', 'agent-server', '--grep', '@THREAD-CREATE|@RUN-CREATE', '--quiet']),
  ]);
  const out = mkdtempSync(join(tmpdir(), 'apc-matrix-'));
  // The second run given first, with its report.json file: --when puts it last in the history.
  const second = join(runs.out, 'report.json');
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  const made = await runCli(['matrix', second, threads.out, '--when', `${second}=${tomorrow}`, '--title', 'The simulator | nightly', '--out', out]);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  const matrix = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')) as Matrix;
  expect(matrixProblems(matrix)).toEqual([]);
  expect(matrix.targets).toEqual([{ name: 'embedded simulator', columns: ['c1', 'c2'] }]);
  const [first, last] = matrix.columns;
  expect([first.seed, first.whenFrom, first.folder]).toEqual(['1', 'file-time', relative(out, threads.out)]);
  expect([last.seed, last.whenFrom, last.when, last.file]).toEqual(['2', 'given', tomorrow, 'report.json']);
  expect(last.narrowed).toEqual(['--plane agent-server', '--grep @THREAD-CREATE|@RUN-CREATE']);

  // A rule both runs judged, and one only the first run selected: the history says which run had which verdict.
  const both = matrix.rows.find((r) => r.id === 'THREAD-CREATE-METADATA')!;
  expect(both.cells).toEqual({ c1: 'pass', c2: 'pass' });
  expect(both.history['embedded simulator']).toEqual({ pass: { first: 'c1', last: 'c2' } });
  const firstOnly = matrix.rows.find((r) => r.id.startsWith('THREAD-') && r.cells.c1 === 'pass' && r.cells.c2 !== 'pass')!;
  expect(firstOnly.history['embedded simulator']).toEqual({ pass: { first: 'c1', last: 'c1' }, [firstOnly.cells.c2]: { first: 'c2', last: 'c2' } });

  // The scores are the reports' own counts, and matrix.md names the latest run's.
  const mustOf = (id: 'c1' | 'c2', verdict: string) =>
    [threads, runs][id === 'c1' ? 0 : 1].report.rules.filter((r) => r.level === 'MUST' && r.source !== 'interpretation' && r.verdict === verdict).length;
  expect(first.score.must.passed).toBe(mustOf('c1', 'pass'));
  expect(last.score.must.judged).toBe(mustOf('c2', 'pass') + mustOf('c2', 'fail'));
  const { passed, judged } = last.score.must;
  const markdown = readFileSync(join(out, 'matrix.md'), 'utf8');
  expect(markdown, 'headed with --title').toMatch(/^## The simulator \\\| nightly: 1 target, 2 runs\n/);
  expect(markdown).toContain(`| embedded simulator | embedded-simulator | ${tomorrow.slice(0, 16).replace('T', ' ')}, tool `);
  expect(markdown).toContain(`| 2 | ${passed}/${judged} (`);
  expect(markdown).toContain(`**Interop: ${matrix.views.interop.passed.length} of ${matrix.views.interop.inScope} rules`);
  expect(made.stdout).toContain(`2 run(s), ${matrix.rows.length} rules`);
  // The site holds the same data, and links each run's report page beside its report.json.
  const site = readFileSync(join(out, 'index.html'), 'utf8');
  const island = /<script type="application\/json" id="matrix-data">([\s\S]*?)<\/script>/.exec(site)!;
  expect(JSON.parse(island[1])).toEqual(matrix);
  expect([first.html, last.html]).toEqual([`${relative(out, threads.out)}/report.html`, `${relative(out, runs.out)}/report.html`]);

  // A --when for no report given (a report of another major format: main.test.ts, as for compare).
  const help = await runCli(['matrix', '--help']);
  expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('index.html   the site: opens from the file system or any static host')]);
  const unknown = await runCli(['matrix', threads.out, '--when', 'elsewhere=2025-05-01', '--out', out]);
  expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('--when elsewhere=2025-05-01: expected <report>=<time>')]);
  const twice = await runCli(['matrix', threads.out, `${threads.out}/report.json`, '--out', out]);
  expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining(`${threads.out} and ${threads.out}/report.json are the same report, given twice`)]);
});
