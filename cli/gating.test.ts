// Gating a CI job on the harness: a target that is not there never passes, a target lost
// mid-run stops the run, and every output (exit code, report.json, junit.xml, summary.md,
// report.html, the console) tells the same outcome, with a baseline and with `compare`.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { startBrokenTarget } from '../tests/self-test/broken-target.ts';
import { MUTATIONS } from '../tests/self-test/mutations/index.ts';
import { CLI, cliEnv, conformanceRun, ROOT, runCli } from '../tests/self-test/run-cli.ts';
import { startStandIn, type StandIn } from '../tests/self-test/stand-in.ts';
import { freePort } from '../harness/target.ts';
import { DROPPED_TEXT, UNREACHABLE_TEXT } from '../specs/evidence-protocol.ts';
import { TARGET_UNREACHABLE } from '../harness/client.ts';
import { TRANSIENT_FAULT } from '../harness/retry.ts';
import { LOST_WHILE_RUNNING } from '../reports/reported-test.ts';

let standIn: StandIn | undefined;
test.afterEach(async () => {
  await standIn?.stop();
  standIn = undefined;
});

function configFile(config: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'apc-gating-')), 'target.yaml');
  writeFileSync(file, toYaml(config));
  return file;
}

test('a target with nothing listening exits 2 before any test, one line per plane, and writes a report saying why with no verdict', async () => {
  const [agent, control, platform] = [await freePort(), await freePort(), await freePort()];
  const config = configFile({
    name: 'nothing there',
    planes: { 'agent-server': `http://127.0.0.1:${agent}`, 'control-plane': `http://127.0.0.1:${control}`, 'platform-api': `http://127.0.0.1:${platform}` },
  });
  const out = mkdtempSync(join(tmpdir(), 'apc-dead-'));
  const run = await runCli(['run', '--target', config, '--out', out]);
  expect(run.code, run.stdout + run.stderr).toBe(2);
  const lines = run.stderr.split('\n').filter((l) => /cannot be reached: .*ECONNREFUSED/.test(l));
  expect(lines.map((l) => l.trim().split(/\s+/)[0]).sort()).toEqual(['agent-server', 'control-plane', 'platform-api']);
  expect(run.stdout, 'no test ran').not.toMatch(/passed|failed/);
  // Still a report folder a CI page can show, saying why, with nothing else in it.
  expect(readdirSync(out).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
  expect(report.run.status).toBe('not-started');
  expect(report.summary.gate.exitCode).toBe(2);
  expect(report.summary.gate.reasons[0]).toMatch(
    /^no test ran: target 'nothing there' is not ready: agent-server http\S+: cannot be reached: connect ECONNREFUSED/,
  );
  expect(new Set(report.rules.map((r) => r.verdict))).toEqual(new Set(['not-run']));
  expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toMatch(/<error type="not-started" message="no test ran: target &apos;nothing there&apos; is not ready/);
  expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain("**Failed** (exit 2): no test ran: target 'nothing there' is not ready");
  // compare refuses it clearly: it has no verdicts.
  const compared = await runCli(['compare', out, out]);
  expect([compared.code, compared.stderr]).toEqual([2, expect.stringContaining('no test ran in that run')]);

  // The case that used to pass: one rule, one plane, a URL.
  const one = await runCli(['run', '--target', `http://127.0.0.1:${agent}`, '--plane', 'agent-server', '--grep', 'THREAD-GET', '--out', out]);
  expect(one.code, one.stderr).toBe(2);
  expect(one.stderr).toContain('no test was run');
});

test('a target that refuses the key, or that is not this API, exits 2 before any test and says which', async () => {
  standIn = await startStandIn(['--no-admin']);
  const wrongKey = configFile({
    name: 'wrong key',
    planes: { 'agent-server': standIn.planes['agent-server'], 'platform-api': standIn.planes['platform-api'] },
    api_key_env: 'APC_GATING_KEY',
  });
  const refused = await runCli(['run', '--target', wrongKey], { APC_GATING_KEY: 'not-a-key' });
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toMatch(/platform-api\s+http\S+: refuses the API key in APC_GATING_KEY/);

  const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a web site</html>'));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const other = await runCli(['run', '--target', url, '--plane', 'agent-server']);
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toMatch(
      /agent-server\s+http\S+: does not answer as the agent-server of this API \(no JSON\): POST \/threads\/search answered 200 <html>/,
    );
  } finally {
    page.close();
  }
});

test('a target that stops answering mid-run stops the run: exit 2, a partial report, no failure', async () => {
  standIn = await startStandIn(['--no-admin']);
  const config = configFile({
    name: 'lost on the way',
    planes: { 'agent-server': standIn.planes['agent-server'] },
    api_key_env: 'APC_GATING_KEY',
    capabilities: [],
  });
  const out = mkdtempSync(join(tmpdir(), 'apc-lost-'));
  // The line reporter (not CI's dots) counts the tests as they end.
  const child = spawn(process.execPath, [CLI, 'run', '--target', config, '--out', out], {
    cwd: ROOT,
    env: cliEnv({ APC_GATING_KEY: standIn.keys.primary, CI: '' }),
  });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (/\[15\/\d+\]/.test(output)) resolve();
    });
  });
  await standIn.stop();
  expect(await exited, output).toBe(2);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
  expect(report.run.status).toBe('target-unreachable');
  // Refused when a request came after the stop; reset when several workers had requests in flight.
  expect(report.run.reason).toMatch(
    /the target stopped answering: agent-server http:\/\/127\.0\.0\.1:\d+ \((connect ECONNREFUSED|The target closed the connection without answering: read ECONNRESET)/,
  );
  const failed = report.rules.filter((r) => r.verdict === 'fail');
  expect(
    failed.map((r) => `${r.id}: ${r.tests.map((t) => `${t.status} ${t.error ?? ''}`.slice(0, 400)).join('; ')}`),
    'a lost target is no failure of its rules',
  ).toEqual([]);
  expect(report.summary.verdicts.pass, 'what ran before is judged').toBeGreaterThan(0);
  expect(report.summary.verdicts['not-run'], 'the rest did not run').toBeGreaterThan(100);
  expect(report.summary.gate).toMatchObject({ exitCode: 2, passed: false });
  // A test stopped by the loss: its request could not reach the target, or was in flight when the target went.
  for (const rule of report.rules.filter((r) => r.verdict === 'error'))
    expect(
      rule.tests.some(
        (t) =>
          t.status === 'error' &&
          [TARGET_UNREACHABLE, TRANSIENT_FAULT, UNREACHABLE_TEXT, DROPPED_TEXT, LOST_WHILE_RUNNING].some((words) => (t.error ?? '').includes(words)),
      ),
      `${rule.id}: ${rule.tests.map((t) => t.error).join('; ')}`,
    ).toBe(true);
  expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toMatch(/<testsuites [^>]* failures="0" errors="\d+"/);
});

test('with a baseline, a regression fails the run in every output, and compare shows it both ways', async () => {
  const grep = ['--plane', 'agent-server', '--grep', '@THREAD-CREATE-(METADATA|EMPTY)'];
  const before = await conformanceRun(grep);
  expect(before.code, before.stdout).toBe(0);

  const target = await startBrokenTarget(MUTATIONS['metadata-loses-nested']);
  try {
    const after = await conformanceRun(['--target', target.config, ...grep, '--baseline', before.out, '--quiet', '--github-annotations'], target.env);
    expect(after.code, after.stdout).toBe(1);
    const { summary } = after.report;
    expect(summary.baseline?.regressions.map((c) => c.id)).toEqual(['THREAD-CREATE-METADATA']);
    expect(summary.gate.reasons).toContain(`1 MUST rules failed: THREAD-CREATE-METADATA`);
    const read = (file: string) => readFileSync(join(after.out, file), 'utf8');
    expect(read('junit.xml')).toMatch(/<testsuites [^>]* failures="1"/);
    expect(read('junit.xml')).toMatch(/THREAD-CREATE-METADATA[^\n]*<failure type="regression" message="regression: pass in [^"]*, fail now/);
    expect(read('summary.md')).toContain('**Failed** (exit 1)');
    expect(read('summary.md')).toMatch(/❌ regression \*\*THREAD-CREATE-METADATA\*\* \(MUST\): pass → fail/);
    expect(read('report.html')).toContain('Failed (exit 1)');
    expect(read('report.html')).toMatch(/regression[^<]*THREAD-CREATE-METADATA|THREAD-CREATE-METADATA[\s\S]{0,400}regression/);

    // Quiet: Playwright's dots and the failures, no line per test; the failing MUST rules last.
    const lines = after.stdout.trim().split('\n');
    expect(
      lines.filter((l) => /\[\d+\/\d+\]/.test(l)),
      'no line per test',
    ).toEqual([]);
    expect(after.stdout).not.toContain('Conformance:');
    expect(after.stdout).toMatch(/^::error title=THREAD-CREATE-METADATA \(MUST §[\d.]+\)::/m);
    expect(lines.at(-1)).toBe('Failing MUST rules: THREAD-CREATE-METADATA');

    const forward = await runCli(['compare', before.out, after.out]);
    expect(forward.code, forward.stderr).toBe(1);
    expect(forward.stdout).toMatch(/\*\*1 regression\*\*/);
    expect(forward.stdout).toMatch(/### Regressions \(1\)[\s\S]*\| THREAD-CREATE-METADATA \| MUST \| pass \| fail \|/);
    const backward = await runCli(['compare', join(after.out, 'report.json'), before.out, '--format', 'json']);
    expect(backward.code, backward.stderr).toBe(0);
    const comparison = JSON.parse(backward.stdout) as { regressions: unknown[]; fixes: { id: string }[]; changes: { id: string }[] };
    expect(comparison.regressions).toEqual([]);
    expect(comparison.fixes.map((c) => c.id)).toEqual(['THREAD-CREATE-METADATA']);
  } finally {
    await target.close();
  }
});

test('--baseline on a shard compares only what the shard ran, and says so; compare --out writes its file and says what it found', async () => {
  // The baseline judged a rule the shard's selection leaves out: no verdict of the shard's, none lost.
  const before = await conformanceRun(['--plane', 'agent-server', '--grep', '@THREAD-CREATE-(METADATA|EMPTY)|@THREAD-GET-UNKNOWN-404']);
  expect(before.code, before.stdout).toBe(0);
  expect(before.report.rules.find((r) => r.id === 'THREAD-GET-UNKNOWN-404')?.verdict).toBe('pass');
  const grep = ['--plane', 'agent-server', '--grep', '@THREAD-CREATE-(METADATA|EMPTY)'];
  const shard = await conformanceRun([...grep, '--shard', '1/2', '--baseline', before.out, '--quiet']);
  expect(shard.code, shard.stdout).toBe(0);
  const judged = shard.report.rules.filter((r) => r.tests.some((t) => t.status === 'passed')).map((r) => r.id);
  expect(judged.length, 'the shard ran part of the selection').toBeGreaterThan(0);
  expect(shard.report.summary.baseline).toMatchObject({ regressions: [], lost: [], fixes: [] });
  expect(shard.stdout, 'quiet, the console names the comparison').toMatch(
    /^Against \S+: 0 regressions, 0 verdicts lost \(0 MUST\), 0 fixed \(only the rules this narrowed run selected are compared: \d+ not selected\)\.$/m,
  );
  expect(readFileSync(join(shard.out, 'summary.md'), 'utf8')).not.toContain('verdict lost');

  const file = join(shard.out, 'comparison.md');
  const compared = await runCli(['compare', before.out, shard.out, '--out', file]);
  expect(compared.code, compared.stderr).toBe(0);
  expect(compared.stdout).toMatch(
    /^\S+ against \S+: 0 regressions, 0 verdicts lost \(0 MUST\), .* not compared\. Written to \S+comparison\.md \(exit 0\)\.\n$/,
  );
  expect(readFileSync(file, 'utf8')).toMatch(/^## Conformance: /);
});
