// The matrix site on a matrix of made-up reports, in Chromium: its data island is matrix.json as is,
// and the page shows what that data says: scores, filters and views, a cell's evidence, a rule's
// history, a diff of two columns, the interop figure over the ticked runs (a narrowed run's unselected
// rules out of scope), state kept in the URL, and target-controlled text never run as HTML.
// tests/matrix/ checks the same site on the reports of real targets.
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plane, Rule } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import type { RecordedExchange, TestOutcome } from './conformance-report.ts';
import { buildMatrix, type MatrixRun } from './matrix.ts';
import { matrixSite } from './matrix-site.ts';
import { launchChromium, selfContainedFaults } from '../tests/chromium.ts';

const HOSTILE = 'metadata is kept </script><img src=x onerror="window.hacked=1">';
const rule = (id: string, level: Rule['level'], plane: Plane = 'agent-server', text = `${id} text`): Rule => ({
  id,
  level,
  source: 'spec',
  plane,
  area: 'threads',
  section: '4.5',
  text,
});
const CATALOGUE = [
  rule('R-A', 'MUST'),
  rule('R-B', 'MUST'),
  rule('R-C', 'SHOULD'),
  rule('R-X', 'MUST', 'agent-server', HOSTILE),
  rule('R-P', 'MUST', 'platform-api'),
];
const EXCHANGE: RecordedExchange = {
  id: 'agent-server-1',
  plane: 'agent-server',
  request: { method: 'POST', url: '/threads', headers: [] },
  response: { status: 500, headers: [], body: '{"detail":"boom"}' },
  violations: [],
};

/** A run of `target` at `when`: its rules' tests ended as given; R-B's failure names EXCHANGE. */
function run(target: string, when: string, statuses: Record<string, TestOutcome['status']>, narrowed?: string[]): MatrixRun {
  const report = buildReport({
    rules: CATALOGUE,
    tests: Object.entries(statuses).map(([id, status]) => {
      const failed = status === 'failed' && id === 'R-B';
      const outcome: TestOutcome = { id, title: `${id} is checked`, file: 'threads.spec.ts', status, observed: [], exchanges: failed ? [EXCHANGE.id] : [] };
      if (failed) Object.assign(outcome, { error: 'expected 201, got 500 [exchange agent-server-1]', failedExchange: EXCHANGE.id });
      return { outcome, ruleIds: [id] };
    }),
    exchanges: [EXCHANGE],
    target: { name: target, kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {}, ...(narrowed ? { narrowed } : {}) },
    tool: { name: 'x', version: '0.1.0' },
    scope: narrowed ? ['agent-server'] : undefined,
  });
  return { report, folder: `${target}-${when}`, file: 'report.json', html: `${target}-${when}/report.html`, when: `${when}T00:00:00.000Z`, whenFrom: 'given' };
}

const ALL_PASS = { 'R-A': 'passed', 'R-B': 'passed', 'R-C': 'passed', 'R-X': 'passed', 'R-P': 'passed' } as const;
const matrix = buildMatrix(
  [
    run('alpha', '2025-01-01', { ...ALL_PASS, 'R-B': 'failed' }),
    run('alpha', '2025-02-01', ALL_PASS),
    // Narrowed to two rules: R-C and R-X are not selected there, R-P is of a plane it did not cover.
    run('beta', '2025-01-15', { 'R-A': 'passed', 'R-B': 'failed' }, ['--grep @R-A|@R-B']),
  ],
  { name: 'x', version: '0.1.0' },
  'alpha & beta <nightly>',
);

test('the page holds matrix.json as is, a text that closes a script tag included', () => {
  const island = /<script type="application\/json" id="matrix-data">([\s\S]*?)<\/script>/.exec(matrixSite(matrix));
  expect(JSON.parse(island![1])).toEqual(JSON.parse(JSON.stringify(matrix)));
  expect(matrix.rows.find((r) => r.id === 'R-C')!.unselected).toEqual(['c3']);
});

test('the site in Chromium: scores, filters and views, evidence, history, a diff and the interop figure', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'apc-matrix-site-')), 'index.html');
  writeFileSync(file, matrixSite(matrix));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = selfContainedFaults(page);
    await page.goto(pathToFileURL(file).href);
    const shownRules = (p: Page) => p.locator('tr.rule:visible').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.rule));

    await expect(page.locator('h1'), 'the title as given, as text').toHaveText('alpha & beta <nightly>');
    await expect(page).toHaveTitle('alpha & beta <nightly>: alpha, beta');
    await expect(page.locator('#shown')).toHaveText('5 of 5 rules shown');
    await expect(page.locator('tr.rule[data-rule="R-X"] .rule-text')).toContainText('<img src=x');
    expect(await page.evaluate(() => (window as { hacked?: number }).hacked)).toBeUndefined();
    // Scores of each target's latest run: runs, MUST, SHOULD, not judged, interpretations.
    const score = (target: string) => page.locator(`#scores tr[data-target="${target}"] td`);
    await expect(score('alpha')).toHaveText(['alpha', 'url', '2025-02-01 00:00, tool 0.1.0, seed 1', '2', '4/4 (100%)', '1/1 (100%)', '0', '0/0 (–)']);
    await expect(score('beta'), 'R-A passed, R-B failed; R-C and R-X not selected and R-P of another plane: neither judged nor not judged').toHaveText([
      'beta',
      'url',
      '2025-01-15 00:00, tool 0.1.0, seed 1, narrowed by --grep @R-A|@R-B',
      '1',
      '1/2 (50%)',
      '0/0 (–)',
      '0',
      '0/0 (–)',
    ]);

    // Filters and views.
    await page.selectOption('#f-level', 'SHOULD');
    expect(await shownRules(page)).toEqual(['R-C']);
    await page.selectOption('#f-level', '');
    await page.fill('#f-q', 'IMG SRC');
    expect(await shownRules(page), 'the search reads rule texts too').toEqual(['R-X']);
    await page.fill('#f-q', '');
    await page.selectOption('#f-verdict', 'fail');
    expect(await shownRules(page)).toEqual(['R-B']);
    await page.selectOption('#f-verdict', '');
    await page.selectOption('#f-view', 'differs');
    expect(await shownRules(page), 'latest runs: R-B passes on alpha, fails on beta; unselected and out of scope differ in nothing').toEqual(['R-B']);
    await page.selectOption('#f-view', 'fails-on-all');
    await expect(page.locator('#shown')).toHaveText('0 of 5 rules shown');
    await page.selectOption('#f-plane', 'agent-server');
    // The view and filters are in the URL: a reload keeps them.
    await page.reload();
    await expect(page.locator('#f-view')).toHaveValue('fails-on-all');
    await expect(page.locator('#f-plane')).toHaveValue('agent-server');
    await page.selectOption('#f-view', 'all');

    // A cell's evidence: the test, its error, the exchange the failure names, the report's link.
    await page.locator('tr.rule[data-rule="R-B"] td.cell[data-column="c1"] button').click();
    const panel = page.locator('#panel');
    await expect(panel.locator('h2')).toHaveText('R-B on alpha');
    await expect(panel.locator('.test-title')).toHaveText('R-B is checked');
    await expect(panel.locator('pre.test-error')).toHaveText('expected 201, got 500 [exchange agent-server-1]');
    await expect(panel.locator('li.exchange.failed')).toHaveText('POST /threads → 500');
    await expect(panel.locator('a.full-report')).toHaveAttribute('href', './alpha-2025-01-01/report.html#q=R-B');
    await page.locator('tr.rule[data-rule="R-C"] td.cell[data-column="c3"] button').click();
    await expect(panel, 'an unselected rule says why it has no verdict').toContainText('The run was narrowed (--grep @R-A|@R-B) and left this rule out');
    await expect(page.locator('#panel-close'), 'the panel takes the focus').toBeFocused();
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(page.locator('tr.rule[data-rule="R-C"] td.cell[data-column="c3"] button'), 'and gives it back').toBeFocused();

    // A rule's history: per target, its runs in time order and the first and last of each verdict.
    await page.locator('tr.rule[data-rule="R-B"] button.rule-id').click();
    const alpha = panel.locator('.history-target[data-target="alpha"]');
    await expect(alpha.locator('li.history-run')).toHaveText(['c1 2025-01-01 00:00: fail', 'c2 2025-02-01 00:00: pass']);
    await expect(alpha.locator('li.history-span')).toHaveText([
      'fail: first c1 2025-01-01 00:00, last c1 2025-01-01 00:00',
      'pass: first c2 2025-02-01 00:00, last c2 2025-02-01 00:00',
    ]);
    await page.keyboard.press('Escape');

    // A diff of two columns: alpha's runs differ in R-B only; alpha's first and beta's in the rules beta left out.
    await page.selectOption('#diff-a', 'c1');
    await page.selectOption('#diff-b', 'c2');
    await expect(page.locator('#diff-count')).toHaveText('1 rules differ between c1 and c2');
    await expect(page.locator('#diff tbody tr')).toHaveAttribute('data-rule', 'R-B');
    await page.selectOption('#diff-b', 'c3');
    expect(await page.locator('#diff tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.rule))).toEqual(['R-C', 'R-X', 'R-P']);

    // Interop: the latest run of each target at first; R-C and R-X unselected on beta, R-P out of its scope.
    await expect(page.locator('.interop-pick:checked')).toHaveCount(2);
    await expect(page.locator('#interop-figure')).toHaveText('1 of 2 rules pass on every selected run (50%)');
    await page.locator('.interop-pick[value="c3"]').uncheck();
    await expect(page.locator('#interop-figure')).toHaveText('5 of 5 rules pass on every selected run (100%)');
    await page.locator('.interop-pick[value="c1"]').check();
    await expect(page.locator('#interop-figure')).toHaveText('4 of 5 rules pass on every selected run (80%)');
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
