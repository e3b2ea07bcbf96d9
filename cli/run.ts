// `run`: the conformance suites against a target, through the recording proxy, and the
// report. Playwright runs the suites in a child process; this command chooses what runs, turns
// a stop (Ctrl-C, SIGTERM, --max-duration) into a partial report, and the report into an exit code.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { planeOf, PLANES, type Endpoint, type Plane } from '../specs/contract.ts';
import { checkTarget, defaultWorkers, freePort, resolveTarget, TargetError, type Target } from '../harness/target.ts';
import {
  flagOf,
  inCi,
  OptionError,
  readConformanceOptions,
  CONFORMANCE_OPTIONS,
  conformanceOptionsHelp,
  suitesEnvironment,
  type OptionName,
  type ConformanceOptions,
  type ConformancePlan,
} from '../harness/conformance-options.ts';
import { defaultProfile } from '../harness/profile.ts';
import { preflight } from '../harness/preflight.ts';
import { paceOf } from '../harness/simulator-pace.ts';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { TOOL } from '../harness/tool.ts';
import { notStartedReport } from '../reports/not-started.ts';
import { REPORT_FILES, writeReport } from '../reports/write.ts';
import { readDurations } from '../reports/durations.ts';
import { balancedShares, specFiles, testListOf } from './shards.ts';
import { loadExpectations } from '../reports/expectations.ts';
import { loadReport, ReportError } from '../reports/load.ts';
import { EXIT, NAME, parse, ROOT, UsageError } from './args.ts';
import { publish, stagingFolder } from './report-folder.ts';

const RUN_HELP = `Usage: ${NAME} run [options]

Runs the conformance suites against a target through a recording proxy and writes
report.json, junit.xml, summary.md, report.html, exchanges.har and durations.json (how long
each spec file took) into --out. A usage error writes nothing. A run writes into a fresh
folder beside --out, whose files replace the earlier run's in --out when it ends: an
earlier report stays whole until then. A run that stops before any test (a target that is
not ready) still writes report.json, junit.xml, summary.md and report.html, saying why (exit 2).

Options:
${conformanceOptionsHelp()}
  -h, --help            this help

Before any test, each plane the target names is probed; one that cannot be reached,
refuses the key or does not answer as this API stops the run (exit 2, one line per plane).

Exit codes: 0   no MUST rule failed (with --expectations: every verdict as expected), and
                no regression against --baseline;
            1   a MUST rule failed (with --expectations: a verdict differs from them), or a
                baseline rule regressed;
            2   usage or target error: the target is not ready or stopped answering, or
                rules could not be judged because it did not answer;
            3   --max-duration stopped the run (a partial report);
            130 interrupted by SIGINT (Ctrl-C) or SIGTERM (a partial report).
Every output (report.json, junit.xml, summary.md, report.html) states the same outcome.`;

export async function run(args: string[]): Promise<number> {
  const values = parse(
    args,
    Object.fromEntries(Object.entries(CONFORMANCE_OPTIONS).map(([name, d]) => [flagOf(name as OptionName).slice(2), parseConfigOf(d)])),
  );
  if (values.help) {
    console.log(RUN_HELP);
    return EXIT.ok;
  }
  // A usage error writes nothing: the earlier report stays as it was.
  const options = readOptions(values);
  const staging = stagingFolder(options.out);
  // A run that stops before any test still writes its report, saying why: a CI page shows it, and merge finds the shard.
  const stopped = (reason: string, target?: Target) => {
    const planes = options.plane;
    const report = notStartedReport({
      reason,
      target: {
        name: target?.name ?? (values.target as string | undefined) ?? 'embedded simulator',
        kind: target?.kind ?? (options.target ? 'unknown' : 'embedded-simulator'),
        planes: Object.keys(target?.endpoints ?? {}) as Endpoint[],
        capabilities: target?.capabilities ?? [],
      },
      seed: options.seed,
      profile: options.profile ?? (target ? defaultProfile(target) : 'unknown'),
      tool: TOOL,
      planes: (planes.length > 0 ? planes : PLANES).filter((plane) => !target || servedBy(target).includes(plane)),
      narrowed: narrowedBy(values, planes, target ? servedBy(target) : [...PLANES]),
      ...(typeof values.shard === 'string' ? { shard: values.shard } : {}),
    });
    writeReport(staging, report);
    return report;
  };
  try {
    return await runWith(options, values, staging, stopped);
  } catch (error) {
    if (error instanceof UsageError) stopped(error.message);
    throw error;
  } finally {
    publish(staging, options.out);
  }
}

type Values = ReturnType<typeof parse>;

/** How node:util's parseArgs reads a declared option. */
const parseConfigOf = (d: { arg?: string; multiple?: boolean }) => ({
  type: d.arg ? ('string' as const) : ('boolean' as const),
  multiple: d.multiple ?? false,
});

/** The command line as ConformanceOptions, each option checked alone and the options checked together, or a usage error. */
function readOptions(values: Values): ConformanceOptions {
  let options: ConformanceOptions;
  try {
    options = readConformanceOptions(values);
    if (options.target !== undefined) options.target = checkTarget(options.target);
  } catch (error) {
    if (error instanceof OptionError || error instanceof TargetError) throw new UsageError(error.message);
    throw error;
  }
  const { target, clock, timeScale, runDuration } = options;
  if (target && (clock ?? timeScale ?? runDuration) !== undefined)
    throw new UsageError('--clock, --time-scale and --run-duration set up the embedded simulator: they do not go with --target');
  if (timeScale !== undefined && clock !== 'real') throw new UsageError('--time-scale needs --clock real');
  if (options.durations !== undefined) {
    if (options.shard === undefined) throw new UsageError('--durations balances the shares of --shard i/n: give --shard too');
    if (options.testList !== undefined) throw new UsageError('--durations splits the whole run into shares: it does not go with --test-list');
  }
  if (options.testList !== undefined && !existsSync(options.testList)) throw new UsageError(`--test-list ${options.testList} does not exist`);
  checkFiles(options);
  return options;
}

/** The files the options name can be read: a usage error now, not a crash in the reporter after the whole run. */
function checkFiles({ baseline, expectations, durations }: ConformanceOptions): void {
  if (baseline) {
    try {
      const earlier = loadReport(baseline);
      if (earlier.run.status === 'not-started')
        throw new ReportError(`${baseline}: no test ran in that run (${earlier.run.reason}), so it has no verdicts to compare with`);
    } catch (error) {
      if (error instanceof ReportError) throw new UsageError(`--baseline: ${error.message}`);
      throw error;
    }
  }
  for (const [flag, file, load] of [
    ['--durations', durations, readDurations],
    ['--expectations', expectations, loadExpectations],
  ] as const) {
    try {
      if (file) load(file);
    } catch (error) {
      throw new UsageError(`${flag}: ${(error as Error).message}`);
    }
  }
}

/** The planes a target names a URL for. */
const servedBy = (target: Target): Plane[] =>
  PLANES.filter((plane) => Object.keys(target.endpoints).some((endpoint) => planeOf(endpoint as Endpoint) === plane));

/** What narrowed the selection, as given: every output says so, and the rules it left out are not-run, not judged. */
function narrowedBy(values: Values, planes: readonly string[], served: readonly Plane[]): string[] {
  return [
    ...(planes.length > 0 && served.some((plane) => !planes.includes(plane)) ? planes.map((plane) => `--plane ${plane}`) : []),
    ...(['grep', 'grep-invert', 'test-list', 'shard'] as const).filter((name) => values[name] !== undefined).map((name) => `--${name} ${values[name]}`),
  ];
}

/**
 * The target of --target, once each plane it names answered as this API; undefined for the embedded
 * simulator. A target that is not ready stops the run before any test: its report says why (exit 2).
 */
async function readyTarget(options: ConformanceOptions, stopped: (reason: string, target?: Target) => ConformanceReport): Promise<Target | number | undefined> {
  if (!options.target) return undefined;
  let target: Target;
  try {
    target = await resolveTarget(options.target);
  } catch (error) {
    if (error instanceof TargetError) throw new UsageError(error.message);
    throw error;
  }
  const problems = await preflight(target, options.plane.length > 0 ? options.plane : PLANES);
  if (problems.length === 0) {
    // Said before the first test: a slow clock costs tens of minutes, unnoticed until the end.
    const { notice } = paceOf(target);
    if (notice) console.log(notice);
    return target;
  }
  console.error(`${NAME}: target '${target.name}' is not ready; no test was run:`);
  for (const p of problems) console.error(`  ${p.endpoint.padEnd(15)} ${p.url}: ${p.problem}`);
  const report = stopped(`target '${target.name}' is not ready: ${problems.map((p) => `${p.endpoint} ${p.url}: ${p.problem}`).join('; ')}`, target);
  console.error(`Report: ${join(options.out, REPORT_FILES.html)} (exit ${report.summary.gate.exitCode})`);
  return report.summary.gate.exitCode;
}

/**
 * What a rerun of one failed test repeats (its report's `run --grep` command), as given: the seed
 * and plane it adds itself. Paths are relative to the folder the run was started in, where the
 * command is meant to be pasted; its report goes beside this one (a rerun that wrote into --out
 * would replace the whole run's report with one test's).
 */
function rerunOptions(values: Values, options: ConformanceOptions): string[] {
  const here = (path: string) => relative(process.cwd(), path) || '.';
  const target = options.target && !/^https?:\/\//i.test(options.target) ? here(options.target) : options.target;
  const given = (['profile', 'clock', 'time-scale', 'run-duration'] as const).flatMap((name) =>
    values[name] === undefined ? [] : [`--${name}`, String(values[name])],
  );
  return [...(target ? ['--target', target] : []), ...given, '--out', `${here(options.out)}-rerun`];
}

/** Playwright's command line for the plan: the config, the selection, the time limit. */
function playwrightArgs(plan: ConformancePlan): string[] {
  const { options } = plan;
  const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
  // The config beside this module's own kind: .ts in the clone, .js in the installed package (dist/).
  const args = [playwright, 'test', '-c', join(ROOT, 'harness', `playwright.config${extname(import.meta.filename)}`)];
  for (const plane of options.plane) args.push('--project', plane);
  if (options.grep) args.push('--grep', options.grep);
  if (options.grepInvert) args.push('--grep-invert', options.grepInvert);
  if (options.testList) args.push('--test-list', options.testList);
  if (options.maxDuration !== undefined) args.push('--global-timeout', String(Math.round(options.maxDuration * 1000)));
  const { shard, durations } = options;
  if (shard && durations) {
    // Every shard computes the same split from the same durations, and runs its share's files.
    const files = specFiles(join(ROOT, 'suites'), plan.planes, extname(import.meta.filename));
    const list = join(plan.scratch, 'shard.txt');
    writeFileSync(list, testListOf(balancedShares(files, readDurations(durations), shard.count)[shard.index - 1]));
    args.push('--test-list', list);
  } else if (shard) args.push('--shard', `${shard.index}/${shard.count}`);
  return args;
}

async function runWith(
  options: ConformanceOptions,
  values: Values,
  staging: string,
  stopped: (reason: string, target?: Target) => ConformanceReport,
): Promise<number> {
  const target = await readyTarget(options, stopped);
  if (typeof target === 'number') return target;
  // Scratch space: the run's hand-over from global setup to the workers, and Playwright's per-test folders unless kept.
  const scratch = mkdtempSync(join(tmpdir(), 'apc-scratch-'));
  const receiverPort = options.webhookReceiverPort ?? (await freePort());
  // Without --target the suites run against the embedded simulator, which lives in this process
  // for the run: the suites reach it over HTTP, as any target. A run with a target never loads it.
  const embedded = target
    ? undefined
    : await (await import('./embedded.ts')).startEmbeddedSimulator(options.seed, receiverPort, {
        clock: options.clock,
        timeScale: options.timeScale,
        runDurationMs: options.runDuration,
      });
  const plan: ConformancePlan = {
    options: { ...options, webhookReceiverPort: receiverPort },
    embedded: embedded?.target,
    planes: options.plane.length > 0 ? options.plane : [...PLANES],
    narrowed: narrowedBy(values, options.plane, target ? servedBy(target) : [...PLANES]),
    rerun: rerunOptions(values, options),
    // A simulator keeps one order of ids and clock (same seed, same report): one worker. Any other
    // target spends the run waiting for answers: several files at a time.
    workers: options.workers ?? defaultWorkers(target),
    scratch,
    staging,
    testResults: options.keepTestResults ? join(staging, 'test-results') : join(scratch, 'test-results'),
    progress: options.quiet || inCi() ? 'dots' : 'line',
  };
  const code = await suites(playwrightArgs(plan), suitesEnvironment(plan, embedded?.variables)).finally(() => {
    embedded?.simulator.close();
    removeScratch(scratch);
  });
  return outcome(code, staging, options.out, (reason) => stopped(reason, target));
}

/** The run's exit code, from the report the reporter wrote (or, when it wrote none, the report of a run that did not start). */
function outcome(code: { status: number; signal?: NodeJS.Signals }, staging: string, outDir: string, stopped: (reason: string) => ConformanceReport): number {
  const reportFile = join(staging, 'report.json');
  const text = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
  if (!text) {
    const reason = code.signal
      ? `interrupted by ${code.signal} before the suites started`
      : `the suites did not start (Playwright exited with ${code.status}; see the output above)`;
    console.error(`${NAME}: ${reason}.`);
    const report = stopped(reason);
    return code.signal ? EXIT.interrupted : report.summary.gate.exitCode;
  }
  const report = JSON.parse(text) as ConformanceReport;
  const ran = report.rules.some((r) => r.tests.some((t) => t.status !== 'skipped' && t.status !== 'not-run'));
  // A run --max-duration stopped before any test ended is still a timed-out run (exit 3), not a usage error.
  if (!code.signal && !ran && code.status !== 0 && report.run.status !== 'timed-out' && report.run.status !== 'not-started') {
    console.error(`${NAME}: no test ran (Playwright exited with ${code.status}); see the output above.`);
    return EXIT.usage;
  }
  // The report's gate is the one outcome: the exit code says what every output says.
  if (code.signal) console.error(`${NAME}: interrupted by ${code.signal}; the partial report is in ${outDir}`);
  return code.signal ? EXIT.interrupted : report.summary.gate.exitCode;
}

/**
 * Removes Playwright's per-test folders. A worker stopped by --max-duration or a signal may still be
 * writing there, so removal is retried, and a leftover temporary folder never changes the run's outcome.
 */
function removeScratch(folder: string): void {
  try {
    rmSync(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (error) {
    console.error(`${NAME}: could not remove the temporary folder ${folder}: ${(error as Error).message}`);
  }
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
