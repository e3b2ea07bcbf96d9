// The command line: run (suites against a target, report written), simulate (the
// simulator on loopback) and proxy (a standalone recording, validating proxy).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PLANES, type Plane } from '../specs/contract.ts';
import { DEFAULT_SEED, startSimulator } from '../simulator/simulator.ts';
import { DeploymentConfigError, loadDeploymentConfig, type DeploymentConfig } from '../simulator/deployment-config.ts';
import { RecordingProxy, toHar } from '../suites/proxy/recording-proxy.ts';
import { checkTarget, TargetError } from '../suites/target.ts';
import type { ConformanceReport } from '../reports/model.ts';
import { compareToBaseline } from '../reports/baseline.ts';
import { loadExpectations } from '../reports/expectations.ts';

const NAME = 'agent-platform-conformance';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const HELP: Record<string, string> = {
  main: `${NAME}: conformance harness and simulator for the Agent Platform API

Usage: ${NAME} <command> [options]

Commands:
  run       run the conformance suites against a target and write a report
  simulate  start the deterministic simulator on loopback and print its URLs
  proxy     start a standalone recording, validating proxy in front of a target

Run '${NAME} <command> --help' for a command's options.`,
  run: `Usage: ${NAME} run [options]

Runs the conformance suites against a target through a recording proxy and writes
report.json, junit.xml, summary.md, report.html and exchanges.har into --out.

Options:
  --target <url|file>   the target: an agent-server URL, a simulator URL, or a YAML
                        config file (planes, api_key_env, capabilities,
                        webhook_receiver_url). Default: the embedded simulator.
  --out <dir>           report folder (default: conformance-report)
  --seed <seed>         seed for the simulator's ids and the property tests
                        (default: ${DEFAULT_SEED}); the same seed gives the same report
  --plane <name>        run one plane's suites only (${PLANES.join(', ')}); repeatable
  --grep <regexp>       run only tests whose title or rule tag matches
  --grep-invert <re>    leave out tests whose title or tag matches (e.g. @slow: tests
                        that wait in real time)
  --baseline <file>     an earlier report.json: exit 1 when a rule that passed there fails now
  --expectations <file> a YAML list of the rules this target is known not to pass, with
                        reasons: exit 1 only on a verdict that differs from it (unexpected
                        passes included)
  --rate-limit-probes   also run the real-time rate-limit probes on a target without a
                        virtual clock. SPENDS THE TARGET'S REAL QUOTA: about 85 requests
                        with its API key on the rows with small limits (run stats in US
                        and EU, run query, run lookup, deletion), about a minute of
                        waiting, and the key is refused on those rows for up to a minute
                        afterwards. Off by default: without it the rate-limit tests skip
                        on such targets. In the report their titles start with
                        "[real-time probe, spends real quota]".
  -h, --help            this help

Exit codes: 0 no MUST rule failed (with --expectations: every verdict as expected), and
              no regression against --baseline;
            1 a MUST rule failed (with --expectations: a verdict differs from them), or a
              baseline rule regressed;
            2 usage or target error.`,
  simulate: `Usage: ${NAME} simulate [options]

Starts the simulator on 127.0.0.1 and prints the base URL of each plane. Its admin path
/__sim (info, clock, clock/advance, reset) drives the virtual clock. Stop with Ctrl-C.

Options:
  --port <n>            port of the agent server (default: a free port)
  --seed <seed>         seed for generated ids (default: ${DEFAULT_SEED})
  --config <file>       deployment configuration file (langgraph.json, or YAML) whose
                        webhooks and http.disable_webhooks settings the agent server
                        follows; \${{ env.VAR }} in webhooks.headers is read from the
                        environment. An invalid file or a missing variable stops startup
                        (exit 2).
  -h, --help            this help`,
  proxy: `Usage: ${NAME} proxy --target <url> [options]

Starts a recording proxy on 127.0.0.1 in front of --target. Every exchange is validated
against the plane's OpenAPI document (violations are printed and sent back in the
x-apc-violations header) and recorded, secrets redacted; the HAR 1.2 file is written on exit.

Options:
  --target <url>        the upstream base URL (required)
  --plane <name>        the plane the target serves: ${PLANES.join(', ')} (default: agent-server)
  --port <n>            port to listen on (default: a free port)
  --har <file>          where to write the HAR on exit (default: exchanges.har)
  -h, --help            this help`,
};

class UsageError extends Error {}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(args: string[], options: ParseArgsConfig['options']): Values {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true }).values as Values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await run(rest);
      case 'simulate':
        return await simulate(rest);
      case 'proxy':
        return await proxy(rest);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        console.log(HELP.main);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${NAME}: ${error.message}\n\n${HELP[command ?? 'main'] ?? HELP.main}`);
      return EXIT.usage;
    }
    throw error;
  }
}

async function run(args: string[]): Promise<number> {
  const values = parse(args, {
    target: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string' },
    plane: { type: 'string', multiple: true },
    grep: { type: 'string' },
    'grep-invert': { type: 'string' },
    baseline: { type: 'string' },
    expectations: { type: 'string' },
    'rate-limit-probes': { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP.run);
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
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, playwrightArgs, {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        APC_TARGET: target ?? '',
        APC_OUT: outDir,
        APC_SEED: (values.seed as string | undefined) ?? DEFAULT_SEED,
        APC_EXPECTATIONS: expectations ?? '',
        APC_RATE_LIMIT_PROBES: values['rate-limit-probes'] ? '1' : '',

      },
    });
    child.on('exit', (status) => done(status ?? EXIT.usage));
  });

  const text = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
  if (!text) {
    console.error(`${NAME}: the suites did not produce a report (Playwright exited with ${code}); see the output above.`);
    return EXIT.usage;
  }
  const report = JSON.parse(text) as ConformanceReport;
  const ran = report.rules.some((r) => r.tests.length > 0);
  if (!ran && code !== 0) {
    console.error(`${NAME}: no test ran (Playwright exited with ${code}); see the output above.`);
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
  return failed ? EXIT.failed : EXIT.ok;
}

async function simulate(args: string[]): Promise<number> {
  const values = parse(args, { port: { type: 'string' }, seed: { type: 'string' }, config: { type: 'string' } });
  if (values.help) {
    console.log(HELP.simulate);
    return EXIT.ok;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got '${String(values.port)}'`);
  let deploymentConfig: DeploymentConfig | undefined;
  if (values.config !== undefined) {
    try {
      deploymentConfig = loadDeploymentConfig(values.config as string, process.env);
    } catch (error) {
      if (!(error instanceof DeploymentConfigError)) throw error;
      console.error(`${NAME}: ${error.message}`);
      return EXIT.usage;
    }
  }
  const sim = await startSimulator({ seed: (values.seed as string | undefined) ?? DEFAULT_SEED, ports: { 'agent-server': port }, deploymentConfig });
  if (deploymentConfig) console.log(`[simulator] deployment configuration ${String(values.config)}: webhooks ${deploymentConfig.webhooks.disabled ? 'disabled' : 'enabled'}`);
  console.log(`[simulator] seed ${sim.info().seed}, virtual time ${sim.clock.iso()}`);
  for (const [plane, url] of Object.entries(sim.urls)) console.log(`[simulator] ${plane.padEnd(14)} ${url}`);
  console.log(`[simulator] admin: ${sim.urls['agent-server']}/__sim/info · Ctrl-C to stop`);
  await untilSignal();
  await sim.close();
  return EXIT.ok;
}

async function proxy(args: string[]): Promise<number> {
  const values = parse(args, { target: { type: 'string' }, plane: { type: 'string' }, port: { type: 'string' }, har: { type: 'string' } });
  if (values.help) {
    console.log(HELP.proxy);
    return EXIT.ok;
  }
  const target = values.target as string | undefined;
  if (!target || !/^https?:\/\//i.test(target)) throw new UsageError('--target <http(s) URL> is required');
  const plane = ((values.plane as string | undefined) ?? 'agent-server') as Plane;
  if (!PLANES.includes(plane)) throw new UsageError(`unknown plane '${plane}'`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got '${String(values.port)}'`);
  const harFile = resolve((values.har as string | undefined) ?? 'exchanges.har');
  const recorder = new RecordingProxy({
    plane,
    target,
    port,
    onExchange: (e) => {
      const flag = e.violations.length > 0 ? `  ✖ ${e.violations.map((v) => `${v.at || '(body)'} ${v.message}`).join('; ')}` : '';
      console.log(`[proxy] ${e.request.method} ${e.request.url} → ${e.response.status}${e.operation ? ` (${e.operation})` : ''}${flag}`);
    },
  });
  const url = await recorder.start();
  console.log(`[proxy] ${url} → ${target} (${plane}); HAR on exit: ${harFile}`);
  await untilSignal();
  await recorder.close();
  writeFileSync(harFile, JSON.stringify(toHar(recorder.exchanges), null, 2));
  console.log(`[proxy] wrote ${recorder.exchanges.length} exchanges to ${harFile}`);
  return EXIT.ok;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
