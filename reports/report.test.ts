// Verdicts from outcomes, and the HTML report as a person sees it in real Chromium.
import { chromium, expect, test } from '@playwright/test';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Rule } from '../specs/contract.ts';
import { buildReport, verdictOf } from './build.ts';
import type { TestOutcome } from './model.ts';
import { writeReport } from './write.ts';

const rule = (id: string, level: Rule['level'] = 'MUST'): Rule => ({ id, level, plane: 'agent-server', area: 'threads', section: '4.5', text: `${id} text` });
const outcome = (status: TestOutcome['status'], extra: Partial<TestOutcome> = {}): TestOutcome => ({ id: status, title: `a ${status} test`, file: 'x.spec.ts', status, observed: [], exchanges: [], ...extra });

test('a verdict comes from the tests of the rule', () => {
  expect(verdictOf(rule('A-B'), [])).toBe('not-tested');
  expect(verdictOf(rule('A-B'), [outcome('skipped')])).toBe('skipped');
  expect(verdictOf(rule('A-B'), [outcome('passed'), outcome('skipped')])).toBe('pass');
  expect(verdictOf(rule('A-B'), [outcome('passed'), outcome('failed')])).toBe('fail');
  expect(verdictOf(rule('A-B'), [outcome('timedOut')])).toBe('fail');
  expect(verdictOf(rule('A-B', 'unspecified'), [outcome('failed')])).toBe('observed');
  expect(verdictOf(rule('A-B'), [outcome('not-run'), outcome('skipped')]), 'a stopped run says nothing').toBe('not-run');
  expect(verdictOf(rule('A-B'), [outcome('interrupted')])).toBe('not-run');
  expect(verdictOf(rule('A-B'), [outcome('interrupted'), outcome('passed')])).toBe('pass');
});

test('a multi-rule test that says which rule failed fails only that one', () => {
  const report = buildReport({
    rules: [rule('R-ONE'), rule('R-TWO')],
    tests: [{ outcome: outcome('failed', { error: 'boom' }), ruleIds: ['R-ONE', 'R-TWO'], failedRules: ['R-TWO'] }],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  expect(report.rules.map((r) => r.verdict)).toEqual(['skipped', 'fail']);
  expect(report.summary.mustFailures).toBe(1);
});

test('expectations turn known failures into expected ones and flag changes both ways', () => {
  const report = buildReport({
    rules: [rule('R-ONE'), rule('R-TWO'), rule('R-THREE')],
    tests: [
      { outcome: outcome('failed'), ruleIds: ['R-ONE'] },
      { outcome: outcome('passed'), ruleIds: ['R-TWO'] },
      { outcome: outcome('failed'), ruleIds: ['R-THREE'] },
    ],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: [], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
    expectations: { target: 't', expected: [{ rule: 'R-ONE', verdict: 'fail', reason: 'known' }, { rule: 'R-TWO', verdict: 'fail', reason: 'was known' }] },
  });
  expect(report.summary.unexpected).toEqual(['R-TWO', 'R-THREE']);
});

test('the HTML report shows the summary, filters by verdict and opens the evidence, in Chromium', async () => {
  test.skip(!existsSync('/usr/bin/chromium') && !process.env.CI, 'Debian chromium is not installed (apt-get install chromium); CI installs it');
  const dir = mkdtempSync(join(tmpdir(), 'apc-html-'));
  const exchange = { id: 'agent-server-1', plane: 'agent-server' as const, operation: 'getThread', request: { method: 'GET', url: '/threads/x', headers: [] as [string, string][] }, response: { status: 500, headers: [] as [string, string][], body: '<oops>' }, violations: [{ at: '', message: 'status 500 is not documented' }] };
  writeReport(
    dir,
    buildReport({
      rules: [rule('R-PASS'), rule('R-FAIL'), rule('R-NONE', 'SHOULD')],
      tests: [
        { outcome: outcome('passed'), ruleIds: ['R-PASS'] },
        { outcome: outcome('failed', { error: 'expected 200, got 500 <script>alert(1)</script>', exchanges: ['agent-server-1'] }), ruleIds: ['R-FAIL'] },
      ],
      exchanges: [exchange],
      target: { name: 'html target', kind: 'url', planes: ['agent-server'], capabilities: [] },
      seed: '9',
      run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
      tool: { name: 'agent-platform-conformance', version: '0.1.0' },
    }),
  );
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(join(dir, 'report.html')).href);
    await expect(page.locator('h1')).toContainText('html target');
    await expect(page.locator('#summary')).toContainText('MUST failures');
    await expect(page.locator('tr.rule')).toHaveCount(3);
    await page.getByRole('button', { name: 'fail', exact: true }).click();
    await expect(page.locator('tr.rule:visible')).toHaveCount(1);
    await expect(page.locator('tr.rule:visible')).toContainText('R-FAIL');
    await page.locator('#R-FAIL summary').first().click();
    await expect(page.locator('#R-FAIL')).toContainText('<script>alert(1)</script>');
    await page.locator('#R-FAIL .exchange summary').click();
    await expect(page.locator('#R-FAIL .exchange')).toContainText('status 500 is not documented');
    await page.getByRole('button', { name: 'not-tested' }).click();
    await expect(page.locator('tr.rule:visible')).toContainText('R-NONE');
    await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
