// The command line as a user meets it: help, clear refusals with exit code 2.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { CLI, cliEnv, conformanceRun, ROOT, runCli, startProxy } from '../tests/self-test/run-cli.ts';
import { startStandIn } from '../tests/self-test/stand-in.ts';
import { freePort } from '../harness/target.ts';

/** A folder's files and their text. */
const folderContents = (dir: string): Record<string, string> =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));

test('--help explains every command and the exit codes', async () => {
  const main = await runCli(['--help']);
  expect(main.code).toBe(0);
  for (const command of ['run', 'simulate', 'proxy']) expect(main.stdout).toContain(command);
  const run = await runCli(['run', '--help']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('--target');
  expect(run.stdout).toContain('Exit codes');
});

test('--version and -V print the version of package.json, and the help lists them', async () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) expect(await runCli([flag])).toMatchObject({ code: 0, stdout: `${version}\n` });
  expect((await runCli(['--help'])).stdout).toContain('-V, --version');
});

test('usage errors exit 2 and say what is wrong', async () => {
  const unknown = await runCli(['launch']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("unknown command 'launch'");
  const badOption = await runCli(['run', '--targett', 'x']);
  expect(badOption.code).toBe(2);
  expect(badOption.stderr).toContain('--targett');
  const badTarget = await runCli(['run', '--target', 'no-such-file.yaml']);
  expect(badTarget.code).toBe(2);
  expect(badTarget.stderr + badTarget.stdout).toContain('neither an http(s) URL nor an existing config file');
  const badPlane = await runCli(['run', '--plane', 'moon']);
  expect(badPlane.code).toBe(2);
  // A typo gets the fix: flags, planes, profiles, and (below) target-config keys.
  const out = mkdtempSync(join(tmpdir(), 'apc-typo-'));
  const typos: [string[], string][] = [
    [['runn'], "unknown command 'runn' (one of run, simulate, proxy, compare, merge, matrix): did you mean 'run'?"],
    [['run', '--targett', 'x'], "Unknown option '--targett'; did you mean '--target'?"],
    [
      ['run', '--plane', 'agent_server', '--out', out],
      "unknown plane 'agent_server' (one of control-plane, platform-api, agent-server): did you mean 'agent-server'?",
    ],
    [['run', '--profile', 'saef', '--out', out], "unknown profile 'saef' (one of read-only, safe, full): did you mean 'safe'?"],
    [['proxy', '--target', 'http://127.0.0.1:9', '--plane', 'platfrom-api'], "did you mean 'platform-api'?"],
    [['simulate', '--sed', '2'], "did you mean '--seed'?"],
    [['simulate', '--port', '4100'], "did you mean '--base-port'?"],
  ];
  for (const [args, said] of typos) {
    const typo = await runCli(args);
    expect([typo.code, typo.stderr], args.join(' ')).toEqual([2, expect.stringContaining(said)]);
  }
  for (const command of ['run', 'proxy']) {
    const help = (await runCli([command, '--help'])).stdout;
    for (const plane of ['agent-server', 'control-plane', 'platform-api']) expect(help, `${command} --help names ${plane}`).toContain(plane);
  }
  expect((await runCli(['run', '--help'])).stdout).toContain('platform-api-eu (EU)');
  const badLevel = await runCli(['simulate', '--log-level', 'verbose']);
  expect(badLevel.code).toBe(2);
  expect(badLevel.stderr).toContain("--log-level must be one of error, warn, info, debug, got 'verbose'");
  const badHar = await runCli(['proxy', '--target', 'http://127.0.0.1:9', '--har', join(tmpdir(), 'no-such-folder', 'x.har')]);
  expect(badHar.code, 'a HAR that cannot be created stops the proxy before it listens').toBe(2);
  expect(badHar.stderr).toContain('cannot write the HAR file');
  expect(badHar.stdout).not.toContain('→');
  // A file where a folder should be: outputs that cannot be written are refused before any work.
  const aFile = join(mkdtempSync(join(tmpdir(), 'apc-out-')), 'a-file');
  writeFileSync(aFile, '');
  const badOut = await runCli(['run', '--out', join(aFile, 'report')]);
  expect([badOut.code, badOut.stderr]).toEqual([2, expect.stringContaining('--out: cannot write to')]);
  const badPersist = await runCli(['simulate', '--persist', join(aFile, 'state.json')]);
  expect([badPersist.code, badPersist.stderr]).toEqual([2, expect.stringContaining('--persist: cannot write to')]);
});

test('no run destroys an earlier report: a mistyped command writes nothing, a run replaces the report files once it ends', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'apc-keep-'));
  const out = join(parent, 'report');
  const good = await runCli(['run', '--plane', 'agent-server', '--grep', 'THREAD-GET-UNKNOWN-404', '--workers', '1', '--quiet', '--out', out]);
  expect(good.code, good.stdout + good.stderr).toBe(0);
  writeFileSync(join(out, 'notes.txt'), 'mine');
  const before = folderContents(out);
  expect(Object.keys(before).sort()).toEqual(['durations.json', 'exchanges.har', 'junit.xml', 'notes.txt', 'report.html', 'report.json', 'summary.md']);
  // Usage errors alike, whether the parser or an option's value refused it: nothing written, nothing removed.
  for (const args of [
    ['run', '--profile', 'saf', '--out', out],
    ['run', '--tagret', 'x', '--out', out],
    ['run', '--expectations', join(parent, 'none.yaml'), '--out', out],
    ['runn', '--out', out],
  ]) {
    const typo = await runCli(args);
    expect(typo.code, args.join(' ')).toBe(2);
    expect(folderContents(out), `${args.join(' ')} keeps the good report`).toEqual(before);
  }
  expect((await runCli(['compare', out, out])).code, 'the report is still one compare reads').toBe(0);
  // A run that starts and stops before any test replaces the report whole: no exchanges.har of the run before beside it.
  const stopped = await runCli(['run', '--target', `http://127.0.0.1:${await freePort()}`, '--plane', 'agent-server', '--out', out]);
  expect(stopped.code, stopped.stderr).toBe(2);
  expect(Object.keys(folderContents(out)).sort()).toEqual(['junit.xml', 'notes.txt', 'report.html', 'report.json', 'summary.md']);
  expect((JSON.parse(folderContents(out)['report.json']) as ConformanceReport).run.status).toBe('not-started');
  expect(readdirSync(parent), 'no folder of a run is left beside --out').toEqual(['report']);
});

test('inputs are strict: an unknown key, an unset variable, an unknown rule or report format exits 2 with the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'apc-strict-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const refused = async (args: string[], reason: string | RegExp) => {
    const run = await runCli(args);
    expect(run.code, `${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(2);
    expect(run.stderr).toMatch(reason);
    expect(run.stderr, 'the reason, not the whole help').not.toContain('Options:');
  };
  const target = (extra: string) => file('target.yaml', `name: t\nplanes:\n  agent-server: http://127.0.0.1:1\n${extra}`);
  await refused(
    ['run', '--target', target('api_key_envv: KEY\n')],
    /target config \S+target.yaml: \(top level\) must not have property 'api_key_envv' \(did you mean 'api_key_env'\?\)/,
  );
  await refused(['run', '--target', target('api_key_env: APC_STRICT_UNSET\n')], /names environment variables that are not set: APC_STRICT_UNSET/);
  await refused(
    ['run', '--target', target('not_shown_operations:\n  platform-api: [readRuns]\n')],
    /not_shown_operations.platform-api names 'readRuns', which is not an operation of the platform-api plane that the spec does not show \(did you mean 'readRun'\?\)/,
  );
  await refused(['run', '--target', target('oauth_providers: []\n')], /oauth_providers must NOT have fewer than 1 items/);
  // An operation the spec shows is always served: it cannot be declared away.
  await refused(['run', '--target', target('not_shown_operations:\n  agent-server: [createRun]\n')], /names 'createRun', which is not an operation/);
  const expectations = (entry: string) => file('expected.yaml', `target: t\nexpected:\n  - ${entry}\n`);
  await refused(
    ['run', '--expectations', expectations('{ rule: THREAD-GETT, verdict: fail, reason: typo }')],
    /names rules that are not in the catalogue \(specs\/rules.yaml\): THREAD-GETT/,
  );
  await refused(
    ['run', '--expectations', expectations('{ rule: THREAD-GET, verdict: fail, reasn: typo }')],
    /\/expected\/0 must have required property 'reason'; \/expected\/0 must not have property 'reasn'/,
  );
  const future = file('future.json', JSON.stringify({ reportVersion: '2.0', rules: [] }));
  for (const args of [
    ['run', '--baseline', future],
    ['compare', future, future],
    ['merge', future, '--out', join(dir, 'merged')],
    ['matrix', future, '--out', join(dir, 'matrix')],
  ]) {
    await refused(args, /is a report of format 2\.0; this version of the tool reads format 1\.x/);
  }
});

test('simulate prints its URLs and serves the admin path, on the real clock unless told the virtual one', async () => {
  for (const [args, clock] of [
    [[], { kind: 'real', time_scale: 1 }],
    [['--clock', 'virtual'], { kind: 'virtual' }],
  ] as const) {
    const sim = await startStandIn(['--seed', 's1', ...args]);
    try {
      const info = (await (await fetch(`${sim.planes['agent-server']}/__sim/info`)).json()) as { seed: string; clock: unknown; capabilities: string[] };
      expect(info.seed).toBe('s1');
      expect(info.clock).toEqual(clock);
      expect(info.capabilities.includes('virtual-clock')).toBe(clock.kind === 'virtual');
    } finally {
      await sim.stop();
    }
  }
});

test('a proxy whose HAR cannot be written on the way (a full disk) goes on forwarding, says so, and exits 1', async () => {
  const sim = await startStandIn([]);
  const { child, url, output, exited } = await startProxy(['--target', sim.planes['agent-server']!, '--har', '/dev/full']);
  try {
    await expect.poll(output, { timeout: 30_000 }).toContain('failed (ENOSPC');
    for (let i = 0; i < 2; i++)
      expect((await fetch(`${url}/threads`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(output()).toContain('is incomplete');
    expect(output().match(/failed \(ENOSPC/g), 'said once').toHaveLength(1);
  } finally {
    child.kill('SIGKILL');
    await sim.stop();
  }
});

test('proxy --timeout: a target silent that long gets the client a 504 in the documented error shape', async () => {
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  const target = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const { child, url } = await startProxy(['--target', target, '--timeout', '0.5', '--har', join(mkdtempSync(join(tmpdir(), 'apc-t-')), 'x.har')]);
  try {
    const res = await fetch(`${url}/threads/search`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ detail: expect.stringContaining('500 ms') });
    expect((await runCli(['proxy', '--target', target, '--timeout', '0'])).code, 'a timeout must be positive').toBe(2);
  } finally {
    child.kill('SIGKILL');
    silent.closeAllConnections();
    silent.close();
  }
});

test('simulate --no-rate-limits admits what a §8 row would refuse, and says so', async () => {
  const sim = await startStandIn(['--no-rate-limits']);
  try {
    expect(sim.out).toContain('rate limits off');
    // POST /runs/query admits 15 per 10 s per key; the virtual clock never rolls the window.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${sim.planes['platform-api']}/runs/query`, {
        method: 'POST',
        headers: { 'x-api-key': sim.keys.primary, 'content-type': 'application/json' },
        body: '{}',
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    expect(statuses.every((status) => status === 200)).toBe(true);
  } finally {
    await sim.stop();
  }
});

/** A partial report: valid, saying why the run stopped, with what ran judged and the rest not-run. */
function expectPartial(report: ConformanceReport, status: 'interrupted' | 'timed-out', why: RegExp): void {
  expect(report.run.status).toBe(status);
  expect(report.run.reason).toMatch(why);
  expect(report.summary.verdicts.pass, 'what ran before the stop is judged').toBeGreaterThan(0);
  expect(report.summary.verdicts['not-run'], 'what did not run says so').toBeGreaterThan(0);
  const notRun = report.rules.filter((r) => r.verdict === 'not-run');
  for (const rule of notRun)
    expect(
      rule.tests.every((t) => ['not-run', 'interrupted', 'skipped'].includes(t.status)),
      rule.id,
    ).toBe(true);
  expect(notRun[0].tests.find((t) => t.status === 'not-run')?.reason).toMatch(why);
  expect(report.summary.verdicts.fail, 'a stop is no failure').toBe(0);
}

test('--max-duration stops the run, writes a partial report and exits 3', async () => {
  // 20 s: the suites take some seconds to start, more on a busy machine, and some tests must end before the stop;
  // every plane takes twice that, so the stop comes first.
  const run = await conformanceRun(['--max-duration', '20']);
  expect(run.code, run.stderr).toBe(3);
  expect(run.stdout).toContain('Result: failed (exit 3): the run reached --max-duration 20 s');
  expect(run.stderr).toContain('The run reached --max-duration 20 s: it stops now');
  expect(run.stdout + run.stderr, "Playwright's own words for it").not.toContain('Timed out waiting');
  expectPartial(run.report, 'timed-out', /--max-duration 20 s/);
});

test('SIGTERM stops a run as Ctrl-C does: the suites stop, a partial report is written, exit 130', async () => {
  const out = mkdtempSync(join(tmpdir(), 'apc-sigterm-'));
  // The line reporter (not CI's dots) counts the tests as they end.
  const child = spawn(process.execPath, [CLI, 'run', '--plane', 'agent-server', '--out', out], { cwd: ROOT, env: cliEnv({ CI: '' }) });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Once twenty tests have run, as a CI runner cancelling a job would (the line reporter counts them).
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (/\[20\/\d+\]/.test(stdout)) resolve();
    });
  });
  child.kill('SIGTERM');
  expect(await exited, `${stdout}\n${stderr}`).toBe(130);
  expect(stderr).toContain('interrupted by SIGTERM');
  expectPartial(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport, 'interrupted', /interrupted/);
});

test('a run whose output is closed early (run … | head) goes on: its report, and the exit status of its verdicts', async () => {
  const out = mkdtempSync(join(tmpdir(), 'apc-closed-output-'));
  // CI unset: the line reporter writes a line per test, so writes keep coming after the reader left.
  const child = spawn(process.execPath, [CLI, 'run', '--plane', 'agent-server', '--grep', 'THREAD-GET', '--out', out], { cwd: ROOT, env: cliEnv({ CI: '' }) });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise((resolve) => child.stdout.once('data', resolve));
  child.stdout.destroy();
  child.stderr.destroy();
  expect(await exited).toBe(0);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
  expect(report.rules.find((rule) => rule.id === 'THREAD-GET-UNKNOWN-404')?.verdict).toBe('pass');
  expect(report.summary.gate).toMatchObject({ exitCode: 0, passed: true });
});

test('run --clock real: the embedded simulator keeps time by itself, and the suites wait for it', async () => {
  const run = await conformanceRun([
    '--clock',
    'real',
    '--time-scale',
    '20',
    '--plane',
    'agent-server',
    '--grep',
    '@MULTITASK-REJECT-409|@RUN-JOIN$|@CRON-RUNS-ON-SCHEDULE',
  ]);
  expect(run.code, run.stdout).toBe(0);
  expect(run.report.target.capabilities, 'no virtual clock to move').not.toContain('virtual-clock');
  const verdicts = Object.fromEntries(
    run.report.rules.filter((r) => ['MULTITASK-REJECT-409', 'RUN-JOIN', 'CRON-RUNS-ON-SCHEDULE'].includes(r.id)).map((r) => [r.id, r.verdict]),
  );
  expect(verdicts).toEqual({ 'MULTITASK-REJECT-409': 'pass', 'RUN-JOIN': 'pass', 'CRON-RUNS-ON-SCHEDULE': 'pass' });
});
