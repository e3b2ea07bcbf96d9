// `run`: the conformance suites against a target, through the recording proxy, and the
// report. Playwright runs the suites in a child process; this command chooses what runs, turns
// a stop (Ctrl-C, SIGTERM, --max-duration) into a partial report, and the report into an exit code.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { PLANES } from '../specs/contract.ts';
import { DEFAULT_SEED } from '../simulator/simulator.ts';
import { checkTarget, TargetError } from '../suites/target.ts';
import { PROFILES } from '../suites/profile.ts';
import type { ConformanceReport } from '../reports/model.ts';
import { compareToBaseline } from '../reports/baseline.ts';
import { loadExpectations } from '../reports/expectations.ts';
import { EXIT, integerOption, NAME, parse, positiveOption, ROOT, UsageError } from './args.ts';

export const RUN_HELP = `Usage: ${NAME} run [options]

Runs the conformance suites against a target through a recording proxy and writes
report.json, junit.xml, summary.md, report.html and exchanges.har into --out.

Options:
  --target <url|file>   the target: an agent-server URL, a simulator URL, or a YAML
                        config file (planes, api_key_env, capabilities, time_scale,
                        timeouts, deployment_config, credentials, webhook_receiver_url).
                        Default: the embedded simulator.
  --out <dir>           report folder (default: conformance-report)
  --profile <name>      what the run may create on the target:
                          read-only  nothing: only requests that create no resource
                          safe       threads, runs, assistants, crons, traces and experiments;
                                     no deployments, no OAuth flows, no rate-limit probes
                          full       everything, deployments, OAuth flows and rate-limit
                                     probes included (these spend money and real quota)
                        Default: full on a simulator, safe on any other target. A test that
                        would create what the profile forbids is skipped and says so.
  --seed <seed>         seed for the simulator's ids and the property tests
                        (default: ${DEFAULT_SEED}); the same seed gives the same report
  --plane <name>        run one plane's suites only (${PLANES.join(', ')}); repeatable
  --grep <regexp>       run only tests whose title or rule tag matches
  --grep-invert <re>    leave out tests whose title or tag matches
  --test-list <file>    run only the tests a file lists, one per line as Playwright lists
                        them ([plane] › file › title), or whole files ([plane] › file)
  --workers <n>         run n spec files at a time (default 1, which keeps a shared
                        target's ids and clock in one order: same seed, same report)
  --max-duration <s>    stop after s seconds and write a partial report: what did not run
                        is 'not-run' with the reason (exit 3)
  --baseline <file>     an earlier report.json: exit 1 when a rule that passed there fails now
  --expectations <file> a YAML list of the rules this target is known not to pass, with
                        reasons: exit 1 only on a verdict that differs from it (unexpected
                        passes included)
  --clock <kind>        the embedded simulator's clock: virtual (default) or real
  --time-scale <n>      with --clock real: the embedded simulator's time runs n times faster
  --run-duration <ms>   how long the embedded simulator's runs take (simulated ms)
  -h, --help            this help

Exit codes: 0   no MUST rule failed (with --expectations: every verdict as expected), and
                no regression against --baseline;
            1   a MUST rule failed (with --expectations: a verdict differs from them), or a
                baseline rule regressed;
            2   usage or target error: no verdict;
            3   --max-duration stopped the run (a partial report);
            130 interrupted by SIGINT (Ctrl-C) or SIGTERM (a partial report).`;

export async function run(args: string[]): Promise<number> {
  const values = parse(args, {
    target: { type: 'string' },
    out: { type: 'string' },
    profile: { type: 'string' },
    seed: { type: 'string' },
    plane: { type: 'string', multiple: true },
    grep: { type: 'string' },
    'grep-invert': { type: 'string' },
    'test-list': { type: 'string' },
    workers: { type: 'string' },
    'max-duration': { type: 'string' },
    baseline: { type: 'string' },
    expectations: { type: 'string' },
    clock: { type: 'string' },
    'time-scale': { type: 'string' },
    'run-duration': { type: 'string' },
  });
  if (values.help) {
    console.log(RUN_HELP);
    return EXIT.ok;
  }
  let target: string | undefined;
  try {
    target = values.target === undefined ? undefined : checkTarget(values.target as string);
  } catch (error) {
    if (error instanceof TargetError) throw new UsageError(error.message);
    throw error;
  }
  const planes = (values.plane as string[] | undefined) ?? [];
  for (const plane of planes) if (!(PLANES as readonly string[]).includes(plane)) throw new UsageError(`unknown plane '${plane}'`);
  const profile = values.profile as string | undefined;
  if (profile !== undefined && !(PROFILES as readonly string[]).includes(profile)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, got '${profile}'`);
  const clock = values.clock as string | undefined;
  if (clock !== undefined && clock !== 'virtual' && clock !== 'real') throw new UsageError(`--clock must be virtual or real, got '${clock}'`);
  const timeScale = positiveOption(values, 'time-scale');
  const runDuration = integerOption(values, 'run-duration', 0);
  if (target && (clock ?? timeScale ?? runDuration) !== undefined) throw new UsageError('--clock, --time-scale and --run-duration set up the embedded simulator: they do not go with --target');
  if (timeScale !== undefined && clock !== 'real') throw new UsageError('--time-scale needs --clock real');
  const workers = integerOption(values, 'workers', 1, 64);
  const maxDuration = positiveOption(values, 'max-duration');
  const baseline = values.baseline as string | undefined;
  if (baseline && !existsSync(baseline)) throw new UsageError(`--baseline ${baseline} does not exist`);
  const expectations = values.expectations === undefined ? undefined : resolve(values.expectations as string);
  if (expectations) {
    try {
      loadExpectations(expectations);
    } catch (error) {
      throw new UsageError(`--expectations: ${(error as Error).message}`);
    }
  }
  const outDir = resolve((values.out as string | undefined) ?? 'conformance-report');
  const reportFile = join(outDir, 'report.json');
  if (existsSync(reportFile)) writeFileSync(reportFile, '');

  const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const playwrightArgs = [playwright, 'test', '-c', join(ROOT, 'suites', 'playwright.config.ts')];
  for (const plane of planes) playwrightArgs.push('--project', plane);
  if (values.grep) playwrightArgs.push('--grep', values.grep as string);
  if (values['grep-invert']) playwrightArgs.push('--grep-invert', values['grep-invert'] as string);
  if (values['test-list']) {
    const list = resolve(values['test-list'] as string);
    if (!existsSync(list)) throw new UsageError(`--test-list ${list} does not exist`);
    playwrightArgs.push('--test-list', list);
  }
  if (maxDuration !== undefined) playwrightArgs.push('--global-timeout', String(Math.round(maxDuration * 1000)));
  const code = await suites(playwrightArgs, {
    ...process.env,
    APC_TARGET: target ?? '',
    APC_OUT: outDir,
    APC_SEED: (values.seed as string | undefined) ?? DEFAULT_SEED,
    APC_PROFILE: profile ?? '',
    APC_EXPECTATIONS: expectations ?? '',
    APC_MAX_DURATION: maxDuration === undefined ? '' : String(maxDuration),
    APC_SIM_CLOCK: clock ?? '',
    APC_SIM_TIME_SCALE: timeScale === undefined ? '' : String(timeScale),
    APC_SIM_RUN_DURATION: runDuration === undefined ? '' : String(runDuration),
    ...(workers === undefined ? {} : { APC_WORKERS: String(workers) }),
  });

  const text = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
  if (!text) {
    console.error(`${NAME}: the suites did not produce a report (Playwright exited with ${code.status}); see the output above.`);
    return code.signal ? EXIT.interrupted : EXIT.usage;
  }
  const report = JSON.parse(text) as ConformanceReport;
  if (code.signal || report.run.status === 'interrupted') {
    console.error(`${NAME}: interrupted${code.signal ? ` by ${code.signal}` : ''}; the partial report is in ${outDir}`);
    return EXIT.interrupted;
  }
  const ran = report.rules.some((r) => r.tests.some((t) => t.status !== 'skipped' && t.status !== 'not-run'));
  if (!ran && code.status !== 0) {
    console.error(`${NAME}: no test ran (Playwright exited with ${code.status}); see the output above.`);
    return EXIT.usage;
  }
  // With expectations, only a departure from them fails the run; else any MUST failure does.
  let failed = report.summary.unexpected ? report.summary.unexpected.length > 0 : report.summary.mustFailures > 0;
  if (report.unknownRuleTags.length > 0) {
    console.error(`${NAME}: tests are tagged with rules that are not in specs/rules.yaml: ${report.unknownRuleTags.map((u) => u.tag).join(', ')}`);
    failed = true;
  }
  if (baseline) {
    const regressions = compareToBaseline(JSON.parse(readFileSync(baseline, 'utf8')) as ConformanceReport, report);
    for (const r of regressions) console.error(`regression: ${r.id} was ${r.before} in ${baseline}, now ${r.after}`);
    if (regressions.length > 0) failed = true;
  }
  if (failed) return EXIT.failed;
  if (report.run.status === 'timed-out') {
    console.error(`${NAME}: --max-duration ${maxDuration} s reached; the partial report is in ${outDir}`);
    return EXIT.incomplete;
  }
  return EXIT.ok;
}

/**
 * Runs Playwright in a process group of its own, so that this command decides how it stops:
 * the first SIGINT or SIGTERM asks it to stop (it then writes the partial report), a second
 * one kills it.
 */
function suites(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; signal?: NodeJS.Signals }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env, detached: true });
    let received: NodeJS.Signals | undefined;
    const stop = (signal: NodeJS.Signals) => {
      const first = received === undefined;
      received ??= signal;
      try {
        process.kill(-child.pid!, first ? 'SIGINT' : 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // Should this process die first, the suites go with it.
    const orphan = () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    };
    process.on('exit', orphan);
    child.on('exit', (status) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('exit', orphan);
      done({ status: status ?? EXIT.usage, signal: received });
    });
  });
}
