// The agent-server suites against the open-source agent server (@langchain/langgraph-api,
// started with fixtures/langgraph-graph), judged by expectations/langgraph-api-js.yaml: a
// verdict that differs from it fails this test, an unexpected pass as much as a new failure.
// The report stays in test-results/real-server-report/ for CI to keep.
import { expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { startRealServer, type RealServer } from './start.ts';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import { ROOT, runCli } from '../self-test/run-cli.ts';

const OUT = join(ROOT, 'test-results', 'real-server-report');
const EXPECTATIONS = join(ROOT, 'expectations', 'langgraph-api-js.yaml');
// Files run in parallel: every test keeps to its own threads, and the real server's delays
// are real time (about 100 s with 4 workers on a 2-core machine, twice that with one).
const WORKERS = '4';

let server: RealServer | undefined;
// In a hook, so that the server stops even when the test times out.
test.afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('the agent-server suites against @langchain/langgraph-api give the verdicts of its expectations file', async () => {
  // Generous: in CI it shares two cores with the broken-target runs.
  test.setTimeout(20 * 60_000);
  rmSync(OUT, { recursive: true, force: true });
  const real = (server = await startRealServer());
  // A local server answers at once: its config keeps the waits for deliveries short.
  const config = join(mkdtempSync(join(tmpdir(), 'apc-real-server-')), 'target.yaml');
  writeFileSync(
    config,
    // A name without the port, which changes from run to run: reports of several runs form one history in a matrix.
    toYaml({ name: '@langchain/langgraph-api with the fixture graph', planes: { 'agent-server': real.url }, timeouts: { webhook: '10s', settle: '2s' } }),
  );
  const run = await runCli(['run', '--target', config, '--plane', 'agent-server', '--out', OUT, '--expectations', EXPECTATIONS, '--workers', WORKERS]);
  const reportFile = join(OUT, 'report.json');
  expect(existsSync(reportFile), `no report from the run (exit ${run.code}):\n${run.stdout}\n${run.stderr}\n${real.output()}`).toBe(true);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ConformanceReport;
  const unexpected = report.rules
    .filter((rule) => rule.asExpected === false)
    .map((rule) => {
      const expected = rule.expected ? `${rule.expected.verdict} (${rule.expected.reason})` : 'not fail';
      const why = rule.tests.find((t) => t.status !== 'passed' && t.error)?.error?.split('\n')[0];
      return `${rule.id}: ${rule.verdict}, expected ${expected}${why ? ` — ${why}` : ''}`;
    });
  expect(unexpected, `verdicts that differ from ${EXPECTATIONS} (report: ${join(OUT, 'report.html')})`).toEqual([]);
  expect(report.unknownRuleTags, 'tests tagged with unknown rules').toEqual([]);
  expect(run.code, `the CLI's exit code\n${run.stderr}`).toBe(0);

  // Every output tells that outcome: the expected failures are shown as such, and no JUnit failure.
  const expectedFailures = report.rules.filter((rule) => rule.verdict === 'fail' && rule.asExpected).map((rule) => rule.id);
  expect(expectedFailures.length, 'the server is known to fail some rules').toBeGreaterThan(10);
  const junit = readFileSync(join(OUT, 'junit.xml'), 'utf8');
  expect(junit).toMatch(/<testsuites [^>]* failures="0" errors="0"/);
  expect(junit.match(/<skipped message="expected failure: /g)?.length).toBe(expectedFailures.length);
  const summary = readFileSync(join(OUT, 'summary.md'), 'utf8');
  expect(summary).toContain('**Passed** (exit 0): every verdict as expected.');
  for (const id of expectedFailures) expect(summary).toMatch(new RegExp(`## Failures as expected[\\s\\S]*- ${id} \\(`));
  expect(run.stdout, 'the console counts the expected failures, it does not list them').toContain(
    `every verdict as expected; ${expectedFailures.length} failures as expected`,
  );
  expect(run.stdout).not.toMatch(/✘/);
});
