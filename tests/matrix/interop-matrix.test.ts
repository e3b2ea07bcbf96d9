// The interop matrix on real data, as its users read it: the embedded simulator (two runs, an earlier
// one in which a broken target fails one rule, and a clean one: embedded-runs.test.ts), the real-time
// stand-in and the open-source agent server (all four reports come from the `real-targets` project,
// which this one depends on). matrix.json is checked against those reports, then the site in Debian's Chromium: a
// cell's evidence, a filter, one rule's history, two-column diffs, the views and the interop figure.
// Every expected value is computed from matrix.json or the reports, never written in.
import { type Browser, expect, type Page, test } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import type { Cell, Column, Matrix, Row } from '../../reports/matrix.ts';
import { matrixProblems } from '../../reports/matrix-load.ts';
import { launchChromium, selfContainedFaults } from '../chromium.ts';
import { MUTATIONS } from '../self-test/mutations/index.ts';
import { ROOT, runCli } from '../self-test/run-cli.ts';
import { EARLIER, EMBEDDED, MUTATION, NOW, OUT, RESULTS } from './embedded-runs.ts';

const REAL_TARGET = join(RESULTS, 'real-target-report');
const REAL_SERVER = join(RESULTS, 'real-server-report');
const SCREENSHOT = join(RESULTS, 'matrix-site.png');
const EARLIER_WHEN = '2025-05-01T09:00:00.000Z';
const NOW_WHEN = '2025-05-02T09:00:00.000Z';

const readReport = (folder: string) => JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as ConformanceReport;
const cellOf = (row: Row, column: string): Cell => row.cells[column];
/** A not-run cell of a rule its run's narrowing left out: it says nothing of the target. */
const unselected = (report: ConformanceReport, id: string) => report.rules.find((r) => r.id === id)?.reason?.startsWith('not selected') ?? false;

/** MUST or SHOULD rules of the spec and the service (interpretations apart) passed, out of those judged. */
function scoreOf(report: ConformanceReport, level: 'MUST' | 'SHOULD'): string {
  const rules = report.rules.filter((r) => r.level === level && r.source !== 'interpretation');
  return `${rules.filter((r) => r.verdict === 'pass').length}/${rules.filter((r) => r.verdict === 'pass' || r.verdict === 'fail').length}`;
}

/** The interop figure over `columns`: the rules pass in each, out of those in scope in each (the site's contract). */
function interopOf(matrix: Matrix, columns: string[], reports: Map<string, ConformanceReport>): { passed: string[]; inScope: string[] } {
  const inScope = (row: Row, column: string) => {
    const cell = cellOf(row, column);
    return cell !== 'absent' && cell !== 'out-of-scope' && !(cell === 'not-run' && unselected(reports.get(column)!, row.id));
  };
  return {
    passed: matrix.rows.filter((row) => columns.every((c) => cellOf(row, c) === 'pass')).map((r) => r.id),
    inScope: matrix.rows.filter((row) => columns.every((c) => inScope(row, c))).map((r) => r.id),
  };
}

let browser: Browser | undefined;
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

test('the matrix of the embedded simulator (two runs), the real-time stand-in and the open-source server: matrix.json and the site in Chromium', async ({}, testInfo) => {
  test.setTimeout(10 * 60_000);
  for (const folder of [REAL_TARGET, REAL_SERVER, EARLIER, NOW])
    expect(existsSync(join(folder, 'report.json')), `${folder}: written by the real-targets project`).toBe(true);
  const broken = MUTATIONS[MUTATION].breaks[0];

  // Given newest first: --when, not the order of the arguments, puts the earlier run first.
  const made = await runCli([
    'matrix',
    NOW,
    EARLIER,
    REAL_TARGET,
    REAL_SERVER,
    '--when',
    `${NOW}=${NOW_WHEN}`,
    '--when',
    `${EARLIER}=${EARLIER_WHEN}`,
    '--out',
    OUT,
  ]);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  const matrix = JSON.parse(readFileSync(join(OUT, 'matrix.json'), 'utf8')) as Matrix;
  expect(matrixProblems(matrix)).toEqual([]);

  // Three targets, four columns: the embedded simulator's two in time order, then one per real target.
  const reportsOf = [EARLIER, NOW, REAL_TARGET, REAL_SERVER].map(readReport);
  const [earlierReport, nowReport, standInReport, serverReport] = reportsOf;
  expect(matrix.targets).toEqual([
    { name: EMBEDDED, columns: ['c1', 'c2'] },
    { name: standInReport.target.name, columns: ['c3'] },
    { name: serverReport.target.name, columns: ['c4'] },
  ]);
  expect(matrix.columns.map((c) => [c.id, c.folder, c.when])).toEqual([
    ['c1', 'embedded-earlier', EARLIER_WHEN],
    ['c2', 'embedded-now', NOW_WHEN],
    ['c3', '../real-target-report', expect.any(String)],
    ['c4', '../real-server-report', expect.any(String)],
  ]);
  const reports = new Map(matrix.columns.map((c, i) => [c.id, reportsOf[i]]));
  const rowOf = (id: string) => matrix.rows.find((r) => r.id === id)!;
  const column = (id: string) => matrix.columns.find((c) => c.id === id)!;

  // The broken rule's history: failed in the earlier run only.
  const brokenRow = rowOf(broken);
  expect([cellOf(brokenRow, 'c1'), cellOf(brokenRow, 'c2')]).toEqual(['fail', 'pass']);
  expect(brokenRow.history[EMBEDDED]).toEqual({ fail: { first: 'c1', last: 'c1' }, pass: { first: 'c2', last: 'c2' } });

  // Each target's latest run scores as its report counts.
  for (const [id, report] of [
    ['c2', nowReport],
    ['c3', standInReport],
    ['c4', serverReport],
  ] as const) {
    const { must, should } = column(id).score;
    expect([`${must.passed}/${must.judged}`, `${should.passed}/${should.judged}`], `${id}'s score`).toEqual([
      scoreOf(report, 'MUST'),
      scoreOf(report, 'SHOULD'),
    ]);
  }

  // The interop figure over the latest runs: the agent-server rules are those in scope on all three,
  // but for those a narrowed run left out (no verdict on the target).
  const latest = ['c2', 'c3', 'c4'];
  const interop = interopOf(matrix, latest, reports);
  const agentServer = nowReport.rules.filter((r) => r.plane === 'agent-server').map((r) => r.id);
  expect(interop.inScope).toEqual(agentServer.filter((id) => !latest.some((c) => unselected(reports.get(c)!, id))));
  expect(interop.passed.length).toBeGreaterThan(0);
  expect(matrix.views.interop).toEqual({ columns: latest, passed: interop.passed, inScope: interop.inScope.length });

  // The rules the open-source server is expected to fail are its failures, and differ from the simulator's passes.
  const expectations = parseYaml(readFileSync(join(ROOT, 'expectations', 'langgraph-api-js.yaml'), 'utf8')) as {
    expected: { rule: string; verdict: string }[];
  };
  const serverFails = matrix.rows.filter((row) => cellOf(row, 'c4') === 'fail').map((r) => r.id);
  expect(serverFails.sort()).toEqual(
    expectations.expected
      .filter((e) => e.verdict === 'fail')
      .map((e) => e.rule)
      .sort(),
  );
  const failsWhereSimulatorPasses = serverFails.filter((id) => cellOf(rowOf(id), 'c2') === 'pass');
  expect(failsWhereSimulatorPasses.length).toBeGreaterThan(10);
  expect(matrix.views.differs).toEqual(expect.arrayContaining(failsWhereSimulatorPasses));
  console.log(
    `[matrix] scores (MUST, SHOULD): ${latest.map((c) => `${column(c).target} ${scoreOf(reports.get(c)!, 'MUST')}, ${scoreOf(reports.get(c)!, 'SHOULD')}`).join('; ')}; interop ${interop.passed.length} of ${interop.inScope.length}; ${matrix.views.differs.length} differ`,
  );

  // The site, in Chromium from the file system.
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = selfContainedFaults(page);
  const site = pathToFileURL(join(OUT, 'index.html')).href;
  await page.goto(site);
  expect(JSON.parse((await page.locator('#matrix-data').textContent()) ?? ''), 'the site holds matrix.json').toEqual(matrix);

  for (const { name, columns } of matrix.targets) {
    const report = reports.get(columns.at(-1)!)!;
    const scores = page.locator(`#scores tr[data-target="${name}"]`);
    await expect(scores).toContainText(scoreOf(report, 'MUST'));
    await expect(scores).toContainText(scoreOf(report, 'SHOULD'));
  }

  await checkEvidence(page, { rule: broken, column: column('c1'), report: earlierReport });
  await checkFilters(page, matrix);
  await checkHistory(page, matrix, broken);
  for (const [a, b] of [
    ['c1', 'c2'],
    ['c2', 'c4'],
  ])
    await checkDiff(page, matrix, a, b);
  await checkInterop(page, matrix, reports);

  // The screenshot with the broken rule's evidence open, as a reader triaging it sees the site.
  await page.locator(`table#matrix tr.rule[data-rule="${broken}"] td.cell[data-column="c1"] button`).click();
  await expect(page.locator('#panel')).toBeVisible();
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  await testInfo.attach('matrix-site', { path: SCREENSHOT, contentType: 'image/png' });
  expect(errors, 'no script error, nothing fetched beyond the file system').toEqual([]);
});

const rows = (page: Page) => page.locator('table#matrix tbody tr.rule:not([hidden])');
const shownRules = async (page: Page) => (await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-rule')))).sort();

/** A click on a cell opens its run's evidence: each failed test's title, error and exchanges, and the full report's link. */
async function checkEvidence(page: Page, { rule, column, report }: { rule: string; column: Column; report: ConformanceReport }): Promise<void> {
  const panel = page.locator('#panel');
  await page.locator(`table#matrix tr.rule[data-rule="${rule}"] td.cell[data-column="${column.id}"] button`).click();
  await expect(panel).toBeVisible();
  const body = page.locator('#panel-body');
  for (const text of [rule, column.target]) await expect(body.locator('h1, h2, h3').first()).toContainText(text);
  await expect(body).toContainText(column.id);
  const failed = report.rules.find((r) => r.id === rule)!.tests.filter((t) => t.status === 'failed');
  expect(failed.length).toBeGreaterThan(0);
  const line = (id: string) => {
    const { request, response } = report.exchanges[id];
    return `${request.method} ${request.url} → ${response?.status}`;
  };
  for (const outcome of failed) {
    const shown = body.locator('.test').filter({ has: page.locator('.test-title', { hasText: outcome.title }) });
    await expect(shown).toHaveCount(1);
    await expect(shown.locator('.test-status')).toContainText('failed');
    await expect(shown.locator('pre.test-error')).toContainText(outcome.error!.split('\n')[0]);
    // The test's exchanges, each as one line (a long list may be cut short: the report has them all).
    const lines = await shown.locator('li.exchange').allTextContents();
    expect(lines.length).toBeGreaterThan(0);
    expect(outcome.exchanges.map(line)).toEqual(expect.arrayContaining(lines.map((l) => l.trim())));
    await expect(shown.locator('li.exchange.failed')).toHaveText(line(outcome.failedExchange!));
  }
  await expect(body.locator('a.full-report')).toHaveAttribute('href', `./${column.folder}/report.html#q=${rule}`);
  await page.locator('#panel-close').click();
  await expect(panel).toBeHidden();
}

/** The count line and the rows shown agree with matrix.json, the state survives a reload (the URL hash). */
async function expectShown(page: Page, matrix: Matrix, expected: string[]): Promise<void> {
  await expect(page.locator('#shown')).toHaveText(`${expected.length} of ${matrix.rows.length} rules shown`);
  expect(await shownRules(page)).toEqual([...expected].sort());
}

async function checkFilters(page: Page, matrix: Matrix): Promise<void> {
  await expectShown(
    page,
    matrix,
    matrix.rows.map((r) => r.id),
  );
  // A verdict in any column, on one plane.
  await page.locator('#f-verdict').selectOption('fail');
  const failing = matrix.rows.filter((row) => Object.values(row.cells).includes('fail'));
  await expectShown(
    page,
    matrix,
    failing.map((r) => r.id),
  );
  await page.locator('#f-plane').selectOption('agent-server');
  await page.locator('#f-level').selectOption('MUST');
  const narrowed = failing.filter((row) => row.plane === 'agent-server' && row.level === 'MUST').map((r) => r.id);
  expect(narrowed.length).toBeGreaterThan(0);
  await expectShown(page, matrix, narrowed);
  for (const row of await rows(page).all()) {
    await expect(row).toHaveAttribute('data-plane', 'agent-server');
    await expect(row).toHaveAttribute('data-level', 'MUST');
    await expect(row.locator('td.cell.v-fail').first()).toBeVisible();
  }
  await page.reload();
  await expectShown(page, matrix, narrowed);
  for (const select of ['#f-verdict', '#f-plane', '#f-level']) await page.locator(select).selectOption('');

  // A search, case-insensitive, in ids and texts.
  const query = 'Thread-Copy';
  await page.locator('#f-q').fill(query);
  const found = matrix.rows.filter((row) => `${row.id}\n${row.text}`.toLowerCase().includes(query.toLowerCase())).map((r) => r.id);
  expect(found.length).toBeGreaterThan(1);
  await expectShown(page, matrix, found);
  await page.locator('#f-q').fill('');

  // The views, as matrix.json names them.
  await page.locator('#f-view').selectOption('differs');
  await expectShown(page, matrix, matrix.views.differs);
  await page.locator('#f-view').selectOption('fails-on-all');
  await expectShown(page, matrix, matrix.views.failsOnAll);
  await page.locator('#f-view').selectOption('all');
  await expectShown(
    page,
    matrix,
    matrix.rows.map((r) => r.id),
  );
}

/** A click on a rule's id lists each target's runs with their verdicts, oldest first, and each verdict's first and last run. */
async function checkHistory(page: Page, matrix: Matrix, rule: string): Promise<void> {
  const row = matrix.rows.find((r) => r.id === rule)!;
  await page.locator(`table#matrix tr.rule[data-rule="${rule}"] button.rule-id`).click();
  await expect(page.locator('#panel')).toBeVisible();
  for (const target of matrix.targets) {
    const history = page.locator(`#panel-body .history-target[data-target="${target.name}"]`);
    const runs = history.locator('li.history-run');
    await expect(runs).toHaveCount(target.columns.length);
    expect(await runs.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-column')))).toEqual(target.columns);
    for (const [i, c] of target.columns.entries()) await expect(runs.nth(i)).toContainText(cellOf(row, c));
    const spans = Object.entries(row.history[target.name]);
    await expect(history.locator('li.history-span')).toHaveText(
      spans.map(([verdict, { first, last }]) => new RegExp(`^${verdict}: first ${first}\\b.*, last ${last}\\b`)),
    );
  }
  await page.locator('#panel-close').click();
}

/** Two columns chosen: exactly the rules whose cells differ between them, with both cells. */
async function checkDiff(page: Page, matrix: Matrix, a: string, b: string): Promise<void> {
  await page.locator('#diff-a').selectOption(a);
  await page.locator('#diff-b').selectOption(b);
  const differ = matrix.rows.filter((row) => cellOf(row, a) !== cellOf(row, b));
  expect(differ.length).toBeGreaterThan(0);
  await expect(page.locator('#diff-count')).toHaveText(`${differ.length} rules differ between ${a} and ${b}`);
  const listed = page.locator('#diff tbody tr[data-rule]');
  expect((await listed.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-rule')))).sort()).toEqual(differ.map((r) => r.id).sort());
  const first = differ[0];
  await expect(page.locator(`#diff tbody tr[data-rule="${first.id}"]`)).toContainText(cellOf(first, a));
  await expect(page.locator(`#diff tbody tr[data-rule="${first.id}"]`)).toContainText(cellOf(first, b));
}

/** The figure over the latest runs at first; one target unticked, over the others. */
async function checkInterop(page: Page, matrix: Matrix, reports: Map<string, ConformanceReport>): Promise<void> {
  const latest = matrix.targets.map((t) => t.columns.at(-1)!);
  const figure = (columns: string[]) => {
    const { passed, inScope } = interopOf(matrix, columns, reports);
    // The figure may go on (a percentage, say).
    return new RegExp(`^${passed.length} of ${inScope.length} rules pass on every selected run\\b`);
  };
  for (const c of matrix.columns) {
    const pick = page.locator(`#interop input.interop-pick[value="${c.id}"]`);
    if (latest.includes(c.id)) await expect(pick).toBeChecked();
    else await expect(pick).not.toBeChecked();
  }
  await expect(page.locator('#interop-figure')).toHaveText(figure(latest));
  // Without the open-source server, the rules only it fails pass on every selected run.
  const dropped = latest.at(-1)!;
  await page.locator(`#interop input.interop-pick[value="${dropped}"]`).uncheck();
  const rest = latest.filter((c) => c !== dropped);
  expect(figure(rest).source).not.toEqual(figure(latest).source);
  await expect(page.locator('#interop-figure')).toHaveText(figure(rest));
}
