// The redacting reporter ahead of the conformance reporter, as the run lists them: a failed
// assertion's text reaches every output (report.json, the HTML, JUnit, summary.md, the console and
// its GitHub annotations) with the run's secrets redacted, however Playwright coloured it.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { defaultPlan } from '../harness/conformance-options.ts';
import { Redaction, shareRunRedaction } from '../harness/proxy/redact.ts';
import RedactingReporter from './redacting-reporter.ts';
import ConformanceReporter from './reporter.ts';

/** The message of the assertion error Playwright's expect throws, colour codes and all. */
function assertionMessage(assert: () => void): string {
  try {
    assert();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the assertion passed');
}

const testCase = {
  id: 't-key',
  title: 'answers the key it was given',
  tags: ['@THREAD-GET'],
  annotations: [],
  location: { file: join(process.cwd(), 'suites/agent-server/x.spec.ts'), line: 1, column: 1 },
  titlePath: () => ['', 'agent-server', 'suites/agent-server/x.spec.ts', 'answers the key it was given'],
} as unknown as TestCase;

test.afterEach(() => shareRunRedaction(undefined));

test("a failed assertion quoting the target's API key and a `redact` name's value shows neither in any output", () => {
  // Neither has the look of a key (lsv2_, bearer): each is redacted by its value alone.
  const apiKey = 'k9Q7Wz9XkPq2LmN4vB8rT6yH3jR5tY';
  const tenant = 'tenantM3pL8sQ2vX7cN4bR9wK1';
  const redaction = new Redaction({ names: ['X-Tenant-Auth'], secrets: [apiKey] });
  // The proxy met the tenant's value under the name the target config adds (`redact`).
  expect(redaction.header('X-Tenant-Auth', tenant)).toBe('REDACTED');
  shareRunRedaction(redaction);

  // Playwright marks the characters a string comparison found different with colour codes, which
  // then cut each secret in two: the search for its value must still find it.
  const messages = [
    assertionMessage(() => expect(`invalid key ${apiKey}`).toBe(`invalid key ${apiKey.slice(0, 20)}AAAAAAAAAA`)),
    assertionMessage(() => expect(`x-tenant-auth=${tenant}`).toBe(`x-tenant-auth=${tenant.slice(0, 12)}`)),
  ];
  expect(messages[0]).toContain(`${apiKey.slice(0, 20)}\u001b[7m`);
  expect(messages[1]).toContain(`${tenant.slice(0, 12)}\u001b[7m`);

  const out = mkdtempSync(join(tmpdir(), 'apc-redacting-'));
  const plan = defaultPlan(out);
  plan.options.githubAnnotations = true;
  const redacting = new RedactingReporter();
  const conformance = new ConformanceReporter({ plan });
  conformance.onBegin({ rootDir: process.cwd() } as FullConfig, { allTests: () => [testCase] } as unknown as Suite);
  const result = { status: 'failed', duration: 1, errors: messages.map((message) => ({ message, stack: message })), annotations: [], attachments: [] };
  for (const reporter of [redacting, conformance]) reporter.onTestEnd(testCase, result as unknown as TestResult);

  let printed = '';
  const log = console.log;
  console.log = (...args: unknown[]) => (printed += `${args.join(' ')}\n`);
  try {
    conformance.onEnd({ status: 'failed' } as FullResult);
  } finally {
    console.log = log;
  }
  const files = readdirSync(out).filter((name) => name !== 'durations.json');
  expect(files.sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
  const written = files.map((name) => readFileSync(join(out, name), 'utf8'));
  const error = JSON.parse(written[files.indexOf('report.json')]).rules.find((r: { id: string }) => r.id === 'THREAD-GET').tests[0].error as string;
  expect(error, 'the assertion is still told').toContain('Received: "invalid key REDACTED"');
  expect(error).toContain('Received: "x-tenant-auth=REDACTED"');
  expect(printed, 'the console and its GitHub annotation print the failure').toContain('::error');
  // Neither secret shows, nor its tail, which the expected text does not share.
  for (const text of [...written, printed]) {
    for (const leak of [apiKey.slice(18), tenant.slice(10), apiKey, tenant]) expect(text).not.toContain(leak);
  }
});
