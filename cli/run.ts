// `run`: the conformance suites against a target, through the recording proxy, and the
// report. Playwright runs the suites in a child process; this command chooses what runs, turns
// a stop (Ctrl-C, SIGTERM, --max-duration) into a partial report, and the report into an exit code.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { planeOf, PLANES, type Endpoint, type Plane } from '../specs/contract.ts';
import { DEFAULT_SEED } from '../simulator/simulator.ts';
import { checkTarget, defaultWorkers, EMBEDDED_TARGET_ENV, resolveTarget, TargetError, type Target } from '../harness/target.ts';
import { defaultProfile, PROFILES } from '../harness/profile.ts';
import { preflight } from '../harness/preflight.ts';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { SELECTION_ENV, type Selection } from '../reports/reporter.ts';
import { TOOL } from '../harness/tool.ts';
import { notStartedReport } from '../reports/not-started.ts';
import { REPORT_FILES, writeReport } from '../reports/write.ts';
import { type Durations, readDurations } from '../reports/durations.ts';
import { balancedShares, specFiles, testListOf } from './shards.ts';
import { unknownName } from '../harness/suggest.ts';
import { loadExpectations } from '../reports/expectations.ts';
import { loadReport, ReportError } from '../reports/load.ts';
import { EXIT, integerOption, NAME, parse, positiveOption, ROOT, UsageError, writableFolder } from './args.ts';
import { startEmbeddedSimulator } from './embedded.ts';

export const RUN_HELP = `Usage: ${NAME} run [options]

Runs the conformance suites against a target through a recording proxy and writes
report.json, junit.xml, summary.md, report.html, exchanges.har and durations.json (how long
each spec file took) into --out. A run that stops before any test (a target that is not
ready, an input refused) still writes report.json, junit.xml, summary.md and report.html,
saying why (exit 2).

Options:
  --target <url|file>   the target: an agent-server URL, a simulator URL, or a YAML
                        config file (planes, api_key_env, capabilities, time_scale,
                        timeouts, deployment_config, credentials, webhook_receiver_url,
                        redact: more secret names kept out of the HAR and the report).
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
  --plane <name>        run one plane's suites only: ${PLANES.join(', ')}; repeatable.
                        platform-api covers both regions, the platform-api (US) and
                        platform-api-eu (EU) endpoints of a target config
  --grep <regexp>       run only tests whose title or rule tag matches
  --grep-invert <re>    leave out tests whose title or tag matches
  --test-list <file>    run only the tests a file lists, one per line as Playwright lists
                        them ([plane] › file › title), or whole files ([plane] › file)
  --workers <n>         run n spec files at a time. Default: 1 on a simulator (the embedded
                        one included), whose ids and clock keep one order: same seed, same
                        report; 4 on any other target, where a run spends its time waiting
  --max-duration <s>    stop after s seconds and write a partial report: what did not run
                        is 'not-run' with the reason (exit 3)
  --shard <i/n>         run the i-th of n shares of the tests (on n machines); join the
                        n report folders with '${NAME} merge'. Shares hold about as many
                        tests each, unless --durations is given
  --durations <path>    with --shard: split the spec files into shares of about equal time,
                        as an earlier run measured them (its durations.json, or its report
                        folder; merge writes one for the whole run). Every shard must get
                        the same file: the split is computed alike in each
  --quiet               print a progress line, then the failures only
  --github-annotations  also print each failing rule as a GitHub Actions error annotation
  --baseline <file>     an earlier report.json (or its folder): every output shows the
                        regressions and fixes, and a regression exits 1
  --expectations <file> a YAML list of the rules this target is known not to pass, with
                        reasons: exit 1 only on a verdict that differs from it (unexpected
                        passes included)
  --clock <kind>        the embedded simulator's clock: virtual (default) or real
  --time-scale <n>      with --clock real: the embedded simulator's time runs n times faster
  --run-duration <ms>   how long the embedded simulator's runs take (simulated ms)
  --keep-test-results   keep Playwright's per-test output folders (attachments, error
                        context) in <out>/test-results; by default they go to a temporary
                        folder removed after the run
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
    shard: { type: 'string' },
    durations: { type: 'string' },
    quiet: { type: 'boolean' },
    'github-annotations': { type: 'boolean' },
    baseline: { type: 'string' },
    expectations: { type: 'string' },
    clock: { type: 'string' },
    'time-scale': { type: 'string' },
    'run-duration': { type: 'string' },
    'keep-test-results': { type: 'boolean' },
  });
  if (values.help) {
    console.log(RUN_HELP);
    return EXIT.ok;
  }
  const outDir = resolve((values.out as string | undefined) ?? 'conformance-report');
  writableFolder(outDir, '--out');
  const reportFile = join(outDir, 'report.json');
  if (existsSync(reportFile)) writeFileSync(reportFile, '');
  // A run that stops before any test still writes its report, saying why: a CI page shows it, and merge finds the shard.
  const stopped = (reason: string, target?: Target) => {
    const planes = ((values.plane as string[] | undefined) ?? []).filter((p): p is Plane => (PLANES as readonly string[]).includes(p));
    const report = notStartedReport({
      reason,
      target: {
        name: target?.name ?? (values.target as string | undefined) ?? 'embedded simulator',
        kind: target?.kind ?? (values.target ? 'unknown' : 'embedded-simulator'),
        planes: Object.keys(target?.planes ?? {}) as Endpoint[],
        capabilities: target?.capabilities ?? [],
      },
      seed: (values.seed as string | undefined) ?? DEFAULT_SEED,
      profile: (values.profile as string | undefined) ?? (target ? defaultProfile(target) : 'unknown'),
      tool: TOOL,
      planes: (planes.length > 0 ? planes : PLANES).filter((plane) => !target || servedBy(target).includes(plane)),
      narrowed: narrowedBy(values, planes, target ? servedBy(target) : [...PLANES]),
      ...(typeof values.shard === 'string' ? { shard: values.shard } : {}),
    });
    writeReport(outDir, report);
    return report;
  };
  try {
    return await runIn(values, outDir, stopped);
  } catch (error) {
    if (error instanceof UsageError) stopped(error.message);
    throw error;
  }
}

type Values = ReturnType<typeof parse>;

/** The planes a target names a URL for. */
const servedBy = (target: Target): Plane[] => PLANES.filter((plane) => Object.keys(target.planes).some((endpoint) => planeOf(endpoint as Endpoint) === plane));

/** What narrowed the selection, as given: every output says so, and the rules it left out are not-run, not judged. */
function narrowedBy(values: Values, planes: readonly string[], served: readonly Plane[]): string[] {
  return [
    ...(planes.length > 0 && served.some((plane) => !planes.includes(plane)) ? planes.map((plane) => `--plane ${plane}`) : []),
    ...(['grep', 'grep-invert', 'test-list', 'shard'] as const).filter((name) => values[name] !== undefined).map((name) => `--${name} ${values[name]}`),
  ];
}

async function runIn(values: Values, outDir: string, stopped: (reason: string, target?: Target) => ConformanceReport): Promise<number> {
  let target: string | undefined;
  try {
    target = values.target === undefined ? undefined : checkTarget(values.target as string);
  } catch (error) {
    if (error instanceof TargetError) throw new UsageError(error.message);
    throw error;
  }
  const planes = (values.plane as string[] | undefined) ?? [];
  for (const plane of planes) if (!(PLANES as readonly string[]).includes(plane)) throw new UsageError(unknownName('plane', plane, PLANES));
  const profile = values.profile as string | undefined;
  if (profile !== undefined && !(PROFILES as readonly string[]).includes(profile)) throw new UsageError(unknownName('profile', profile, PROFILES));
  const clock = values.clock as string | undefined;
  if (clock !== undefined && clock !== 'virtual' && clock !== 'real') throw new UsageError(`--clock must be virtual or real, got '${clock}'`);
  const timeScale = positiveOption(values, 'time-scale');
  const runDuration = integerOption(values, 'run-duration', 0);
  if (target && (clock ?? timeScale ?? runDuration) !== undefined)
    throw new UsageError('--clock, --time-scale and --run-duration set up the embedded simulator: they do not go with --target');
  if (timeScale !== undefined && clock !== 'real') throw new UsageError('--time-scale needs --clock real');
  const workersGiven = integerOption(values, 'workers', 1, 64);
  const maxDuration = positiveOption(values, 'max-duration');
  const baseline = values.baseline === undefined ? undefined : resolve(values.baseline as string);
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
  const shard = values.shard as string | undefined;
  if (shard !== undefined) {
    const [i, n] = shard.split('/').map(Number);
    if (!/^\d+\/\d+$/.test(shard) || i < 1 || i > n) throw new UsageError(`--shard must be i/n with 1 <= i <= n, got '${shard}'`);
  }
  let durations: Durations | undefined;
  if (values.durations !== undefined) {
    if (shard === undefined) throw new UsageError('--durations balances the shares of --shard i/n: give --shard too');
    if (values['test-list'] !== undefined) throw new UsageError('--durations splits the whole run into shares: it does not go with --test-list');
    try {
      durations = readDurations(resolve(values.durations as string));
    } catch (error) {
      throw new UsageError(`--durations: ${(error as Error).message}`);
    }
  }
  const expectations = values.expectations === undefined ? undefined : resolve(values.expectations as string);
  if (expectations) {
    try {
      loadExpectations(expectations);
    } catch (error) {
      throw new UsageError(`--expectations: ${(error as Error).message}`);
    }
  }
  const reportFile = join(outDir, 'report.json');

  // The planes the target serves (the embedded simulator serves them all).
  let served: Plane[] = [...PLANES];
  let resolved: Target | undefined;
  if (target) {
    try {
      resolved = await resolveTarget(target);
    } catch (error) {
      if (error instanceof TargetError) throw new UsageError(error.message);
      throw error;
    }
    const problems = await preflight(resolved, planes.length > 0 ? (planes as Plane[]) : PLANES);
    if (problems.length > 0) {
      console.error(`${NAME}: target '${resolved.name}' is not ready; no test was run:`);
      for (const p of problems) console.error(`  ${p.endpoint.padEnd(15)} ${p.url}: ${p.problem}`);
      const report = stopped(`target '${resolved.name}' is not ready: ${problems.map((p) => `${p.endpoint} ${p.url}: ${p.problem}`).join('; ')}`, resolved);
      console.error(`Report: ${join(outDir, REPORT_FILES.html)} (exit ${report.summary.gate.exitCode})`);
      return report.summary.gate.exitCode;
    }
    served = servedBy(resolved);
  }
  // A simulator keeps one order of ids and clock (same seed, same report): one worker. Any other
  // target spends the run waiting for answers: several files at a time.
  const workers = workersGiven ?? defaultWorkers(resolved);

  const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
  // The config beside this module's own kind: .ts in the clone, .js in the installed package (dist/).
  const playwrightArgs = [playwright, 'test', '-c', join(ROOT, 'harness', `playwright.config${extname(import.meta.filename)}`)];
  for (const plane of planes) playwrightArgs.push('--project', plane);
  if (values.grep) playwrightArgs.push('--grep', values.grep as string);
  if (values['grep-invert']) playwrightArgs.push('--grep-invert', values['grep-invert'] as string);
  if (values['test-list']) {
    const list = resolve(values['test-list'] as string);
    if (!existsSync(list)) throw new UsageError(`--test-list ${list} does not exist`);
    playwrightArgs.push('--test-list', list);
  }
  if (maxDuration !== undefined) playwrightArgs.push('--global-timeout', String(Math.round(maxDuration * 1000)));
  // Scratch space for Playwright's per-test output folders: removed after the run unless asked for.
  const scratch = mkdtempSync(join(tmpdir(), 'apc-scratch-'));
  const testResults = values['keep-test-results'] ? join(outDir, 'test-results') : join(scratch, 'test-results');
  if (shard !== undefined && durations) {
    // Every shard computes the same split from the same durations, and runs its share's files.
    const [i, n] = shard.split('/').map(Number);
    const files = specFiles(join(ROOT, 'suites'), planes.length > 0 ? planes : PLANES, extname(import.meta.filename));
    const list = join(scratch, 'shard.txt');
    writeFileSync(list, testListOf(balancedShares(files, durations, n)[i - 1]));
    playwrightArgs.push('--test-list', list);
  } else if (shard !== undefined) playwrightArgs.push('--shard', shard);
  const seed = (values.seed as string | undefined) ?? DEFAULT_SEED;
  const narrowed = narrowedBy(values, planes, served);
  // What a rerun of one failed test repeats (its report's `run --grep` command), as given: the seed and plane it adds itself.
  const rerun = (['target', 'profile', 'clock', 'time-scale', 'run-duration'] as const).flatMap((name) =>
    values[name] === undefined ? [] : [`--${name}`, String(values[name])],
  );
  // Without --target the suites run against the embedded simulator, which lives in this process
  // for the run: the suites reach it over HTTP, as any target.
  const embedded = target
    ? undefined
    : await startEmbeddedSimulator(seed, { clock: clock === 'real' ? 'real' : 'virtual', timeScale, runDurationMs: runDuration });
  const code = await suites(playwrightArgs, {
    ...process.env,
    APC_TARGET: target ?? '',
    [EMBEDDED_TARGET_ENV]: embedded ? JSON.stringify(embedded.target) : '',
    APC_OUT: outDir,
    APC_TEST_RESULTS: testResults,
    APC_SEED: seed,
    APC_PROFILE: profile ?? '',
    APC_EXPECTATIONS: expectations ?? '',
    APC_BASELINE: baseline ?? '',
    APC_QUIET: values.quiet ? '1' : '',
    APC_GITHUB_ANNOTATIONS: values['github-annotations'] ? '1' : '',
    APC_SHARD: shard ?? '',
    [SELECTION_ENV]: JSON.stringify({ planes: planes.length > 0 ? (planes as Plane[]) : PLANES, narrowed, rerun } satisfies Selection),
    APC_MAX_DURATION: maxDuration === undefined ? '' : String(maxDuration),
    APC_WORKERS: String(workers),
  }).finally(() => {
    embedded?.simulator.close();
    removeScratch(scratch);
  });

  const text = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
  if (!text) {
    const reason = code.signal
      ? `interrupted by ${code.signal} before the suites started`
      : `the suites did not start (Playwright exited with ${code.status}; see the output above)`;
    console.error(`${NAME}: ${reason}.`);
    const report = stopped(reason, resolved);
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
  const { gate } = report.summary;
  if (code.signal) console.error(`${NAME}: interrupted by ${code.signal}; the partial report is in ${outDir}`);
  return code.signal ? EXIT.interrupted : gate.exitCode;
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
