// The HTML report as a person triaging a run uses it, in real Chromium: the search, the filters
// and the MUST failures view, the count of the rows shown, a failure's reproduction lines and
// evidence, and a link that reproduces a view. A screenshot of the MUST failures view is kept.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { launchChromium, selfContainedFaults } from '../tests/chromium.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plane, Rule } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import type { RecordedExchange, TestOutcome } from './conformance-report.ts';
import { curlOf, rerunCommand } from './reproduce.ts';
import { writeReport } from './write.ts';

const rule = (id: string, level: Rule['level'], source: Rule['source'], plane: Plane = 'agent-server', section = '4.5'): Rule => ({
  id,
  level,
  source,
  plane,
  area: 'x',
  section,
  text: `${id} statement`,
});

const exchange: RecordedExchange = {
  id: 'agent-server-1',
  plane: 'agent-server',
  operation: 'createThread',
  request: {
    method: 'POST',
    url: '/threads',
    headers: [
      ['content-type', 'application/json'],
      ['x-api-key', 'REDACTED'],
    ],
    body: `{"metadata":{"note":"it's"}}`,
  },
  response: { status: 500, headers: [], body: '<oops>' },
  violations: [{ at: '', message: 'status 500 is not documented' }],
};
const delivery: RecordedExchange = {
  id: 'webhook:/apc-hooks/t/x#1',
  plane: 'agent-server',
  delivery: true,
  request: { method: 'POST', url: '/apc-hooks/t/x', headers: [], body: '{"status":"error"}' },
  response: { status: 200, headers: [], body: '{"received":true}' },
  violations: [],
};

const outcome = (id: string, status: TestOutcome['status'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  id,
  title: `${id} test`,
  file: 'agent-server/x.spec.ts',
  status,
  observed: [],
  exchanges: [],
  ...extra,
});

const failed = (id: string, extra: Partial<TestOutcome> = {}) =>
  outcome(id, 'failed', {
    error: `expected 201, got 500 <script>alert(1)</script> [exchange ${exchange.id}]`,
    exchanges: [exchange.id, delivery.id],
    failedExchange: exchange.id,
    reproduce: {
      command: rerunCommand({ project: 'agent-server', file: 'agent-server/x.spec.ts', titles: [`${id} test`] }, ['--target', 'target.yaml'], '9'),
      curl: curlOf(exchange, { url: 'https://agent.example' }, { apiKeyEnv: 'MY_API_KEY' }),
    },
    ...extra,
  });

function reportFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'apc-html-'));
  writeReport(
    dir,
    buildReport({
      rules: [
        rule('R-PASS', 'MUST', 'spec'),
        rule('R-FAIL', 'MUST', 'spec'),
        rule('CP-FAIL', 'MUST', 'spec', 'control-plane', '4.1'),
        rule('R-WARN', 'SHOULD', 'service'),
        rule('R-READING', 'SHOULD', 'interpretation'),
        rule('R-NONE', 'SHOULD', 'service'),
        rule('PA-AWAY', 'MUST', 'spec', 'platform-api', '4.3'),
      ],
      tests: [
        { outcome: outcome('t-pass', 'passed'), ruleIds: ['R-PASS'] },
        { outcome: failed('t-fail'), ruleIds: ['R-FAIL'] },
        { outcome: failed('t-cp'), ruleIds: ['CP-FAIL'] },
        { outcome: failed('t-warn'), ruleIds: ['R-WARN'] },
        { outcome: failed('t-reading'), ruleIds: ['R-READING'] },
      ],
      exchanges: [exchange, delivery],
      target: { name: 'html target', kind: 'config', planes: ['agent-server', 'control-plane'], capabilities: [] },
      seed: '9',
      run: { status: 'complete', profile: 'safe', created: {}, cleanedUp: {}, left: {} },
      tool: { name: 'agent-platform-conformance', version: '0.1.0' },
      scope: ['agent-server', 'control-plane'],
    }),
  );
  return dir;
}

test('report.json is the report as built, one line per exchange', () => {
  const text = readFileSync(join(reportFolder(), 'report.json'), 'utf8');
  const report = JSON.parse(text);
  expect(report.reportVersion).toBe('1.5');
  expect(Object.keys(report.exchanges)).toEqual([exchange.id, delivery.id]);
  expect(text).toContain(`    "${exchange.id}": ${JSON.stringify(exchange)}`);
  expect(report.rules.find((r: { id: string }) => r.id === 'R-FAIL').tests[0].reproduce.curl).toContain('${MY_API_KEY}');
});

test('the HTML report: search, filters, the MUST failures view and a failure reproduced, in Chromium', async ({}, testInfo) => {
  const page_ = pathToFileURL(join(reportFolder(), 'report.html')).href;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = selfContainedFaults(page);
    await page.goto(page_);
    const rows = page.locator('tr.rule:visible');
    /** The count line says how many rows are shown, and it is so. */
    const shown = async (n: number) => {
      await expect(rows).toHaveCount(n);
      await expect(page.locator('#shown-count')).toHaveText(String(n));
    };
    await expect(page.locator('h1')).toContainText('html target');
    // Out of scope rows wait for their own filter.
    await shown(6);
    await expect(page.locator('#CP-FAIL')).toContainText('§4.1 Control plane');

    await page.getByRole('searchbox').fill('r-warn');
    await shown(1);
    await expect(rows).toContainText('R-WARN');
    await page.getByRole('searchbox').fill('');

    await page.getByRole('button', { name: 'MUST failures (2)' }).click();
    await shown(2);
    await expect(rows.locator('td:nth-child(2)')).toHaveText(['R-FAIL', 'CP-FAIL']);
    await expect(page.locator('#shown-verdicts')).toHaveText(' (fail 2)');
    expect(new URL(page.url()).hash).toBe('#level=MUST&verdict=fail');
    await page.getByLabel('plane').selectOption('control-plane');
    await shown(1);
    await page.getByLabel('plane').selectOption('');
    await shown(2);

    // A failure opened: its reproduction lines, the failed exchange open, the others folded.
    await page.locator('#R-FAIL summary').first().click();
    const repro = page.locator('#R-FAIL .repro pre');
    await expect(repro.first()).toHaveText(
      "npx agent-platform-conformance run --target target.yaml --seed 9 --plane agent-server --grep 'agent-server/x\\.spec\\.ts t-fail test(?: @\\S+)*$'",
    );
    await expect(repro.nth(1)).toContainText('curl -X POST https://agent.example/threads');
    await expect(repro.nth(1)).toContainText('-H "x-api-key: ${MY_API_KEY}"');
    await expect(page.locator('#R-FAIL .repro')).not.toContainText('REDACTED');
    await expect(page.locator('#R-FAIL')).toContainText('<script>alert(1)</script>');
    const failedOne = page.locator('#R-FAIL .exchange.failed');
    await expect(failedOne.locator('summary')).toContainText(`failed ${exchange.id} POST /threads → 500`);
    await expect(failedOne).toContainText('status 500 is not documented');
    await expect(failedOne.locator('pre').first()).toContainText(`{"metadata":{"note":"it's"}}`);
    const other = page.locator('#R-FAIL .exchange:not(.failed)');
    await expect(other.locator('summary')).toContainText(`${delivery.id} webhook delivery POST /apc-hooks/t/x → 200`);
    await expect(other.locator('pre').first()).toBeHidden();
    await page.locator('#R-FAIL .repro button.copy').first().click();
    await expect(page.locator('#R-FAIL .repro button.copy').first()).toHaveText('copied');

    const screenshot = testInfo.outputPath('html-report-must-failures.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    await testInfo.attach('html-report-must-failures', { path: screenshot, contentType: 'image/png' });

    // A link reproduces the view; the view's button turns it off.
    await page.goto(`${page_}#source=interpretation&q=reading`);
    await shown(1);
    await expect(rows).toContainText('R-READING');
    await expect(page.getByLabel('source')).toHaveValue('interpretation');
    await page.getByLabel('source').selectOption('');
    await page.getByRole('searchbox').fill('');
    await page.getByLabel('verdict').selectOption('out-of-scope');
    await shown(1);
    await expect(rows).toContainText('PA-AWAY');
    await page.getByRole('button', { name: 'MUST failures (2)' }).click();
    await shown(2);
    await page.getByRole('button', { name: 'MUST failures (2)' }).click();
    await shown(6);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
