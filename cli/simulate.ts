// `simulate`: the simulator on loopback, with what a client needs printed: each plane's URL,
// the API keys and the workspaces they open, and ready environment lines.
import { setFlagsFromString } from 'node:v8';
import { environment } from '../harness/environment.ts';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ApiError } from '../simulator/http/errors.ts';
import type { Snapshot } from '../specs/types/simulator-admin.ts';
import { DEFAULT_REAL_RUN_DURATION_MS, DEFAULT_SEED, Simulator } from '../simulator/simulator.ts';
import { clientEnvironment } from '../simulator/start-simulator.ts';
import { DeploymentConfigError, loadDeploymentConfig, type DeploymentConfig } from '../simulator/deployment-config.ts';
import { DEFAULT_LOG_LEVEL, type LogLevel } from '../simulator/log.ts';
import { refusal, type StartOption } from '../simulator/start-options.ts';
import { contract, type Endpoint } from '../specs/contract.ts';
import { EXIT, integerOption, NAME, parse, untilStopped, UsageError, writableFolder } from './args.ts';

const SIMULATE_HELP = `Usage: ${NAME} simulate [options]

Starts the simulator and prints the base URL of each plane, the API keys and the
environment lines the official clients read. Stop with Ctrl-C or SIGTERM. On Linux
and macOS it also stops, as on SIGTERM, when its parent process ends (an npx stopped
with SIGTERM, a test runner that started it directly and crashed), so that no simulator is left
behind on its ports; --detached keeps it running then.

Options:
  --base-port <n>       the agent server on n, the control plane on n+1, the US platform
                        API on n+2 and the EU platform API on n+3 (default: free ports)
  --host <address>      the address to listen on (default: 127.0.0.1)
  --seed <seed>         seed for generated ids (default: ${DEFAULT_SEED})
  --clock <kind>        real (default): time follows the wall clock, and runs, revision
                        builds, crons, webhook retries, upload statistics and rate-limit
                        windows happen by themselves, so a client sees a run pending or
                        running and then final; virtual: time moves only through the admin
                        path (POST /__sim/clock/advance), and every timestamp is the same on
                        every start (what the harness's embedded simulator uses)
  --time-scale <n>      with --clock real: time runs n times faster than the wall clock
                        (default 1; at 60 a 90 s revision build takes 1.5 s; run --target
                        resets a simulator slower than ×5 to ×5, and says so)
  --run-duration <ms>   how long a run of the built-in graph takes, in simulated ms
                        (default ${DEFAULT_REAL_RUN_DURATION_MS} with --clock real, 0 with the virtual clock); a run
                        whose input asks for delay_ms takes that long instead
  --no-admin            serve no admin path: /__sim answers 404, so a harness sees only the
                        documented API, as on a real service
  --no-rate-limits      admit every request: no §8 row refuses one (for load tests of
                        a client; the conformance suites expect the limits)
  --config <file>       deployment configuration file (langgraph.json, or YAML) whose
                        webhooks and http.disable_webhooks settings the agent server
                        follows; \${{ env.VAR }} in webhooks.headers is read from the
                        environment; a top-level faults list sets faults at startup, each
                        as POST /__sim/faults takes it. An invalid file or a missing
                        variable stops startup (exit 2).
  --strict              refuse with 422 what the contract's open schemas let through, naming
                        the field: a body field no schema declares (a typo such as "inptu"),
                        a query parameter the operation does not document, and a value
                        outside the set the contract lists for an open field (run_type of a
                        trace run). Without it such a request is answered as usual, and the
                        answer's ${contract().requestViolationsHeader} header names them
                        (URI-encoded JSON). Bodies are JSON either way: one without
                        Content-Type: application/json answers 415
  --spec-only           serve only what the spec shows: each operation the contract marks
                        beyond the spec (x-spec: extra: paths the official clients call that
                        the spec's tables do not show) answers 404 with a JSON error body
                        whose message names the operation, so a client's tests show whether
                        it depends on anything the spec does not promise. /__sim/info says
                        spec: only
  --log-level <level>   error, warn, info (default) or debug: what the simulator tells of
                        itself. error: its own bugs (a request it answered 500), on stderr;
                        warn adds each request with violations (as info logs it), on stderr;
                        info adds one line per request (method, path, status, milliseconds:
                        "POST /threads 200 0.8 ms") and what the simulated platform did that a
                        client may want to know (a webhook the receiver refused to the last
                        attempt, a cron that could not start its run), on stdout; debug adds
                        each webhook attempt that will be retried
  --state <file>        start from a snapshot (what GET /__sim/snapshot answers): its seed,
                        time, id stream and every resource. A missing or invalid file stops
                        startup (exit 2).
  --persist <file>      keep the state across restarts: start from the file if it exists
                        (as --state; --state, when given too, wins), and when it stops
                        (Ctrl-C, SIGTERM, its parent's end) save the state there (written
                        whole, then renamed into place). Runs in progress and webhook
                        deliveries under way hold the save back for up to 5 s; if they
                        still have not ended, nothing is saved, the file keeps its
                        previous state and the exit status is 1.
  --detached            keep running when the parent process ends: for a simulator that
                        should outlive the shell or script that started it (a CI step
                        that starts it for the next steps). nohup alone does not keep it:
                        the shell it was started from is its parent. Stop it with
                        SIGTERM (kill <pid>)
  -h, --help            this help`;

const PORT_OFFSETS: Record<Endpoint, number> = { 'agent-server': 0, 'control-plane': 1, 'platform-api': 2, 'platform-api-eu': 3 };

export async function simulate(args: string[]): Promise<number> {
  // A simulator left running gathers data for hours. V8 lets a heap grow up to 4× what it held after
  // a full GC and seldom gives it back: at 1.8× a million trace runs take 893 MiB, not 1,183, for
  // 6% of the ingestion rate (npm run bench -- --only ingestion).
  setFlagsFromString('--heap-growing-percent=80');
  const values = parse(args, {
    'base-port': { type: 'string' },
    host: { type: 'string' },
    seed: { type: 'string' },
    clock: { type: 'string' },
    'time-scale': { type: 'string' },
    'run-duration': { type: 'string' },
    'no-admin': { type: 'boolean' },
    'no-rate-limits': { type: 'boolean' },
    strict: { type: 'boolean' },
    'spec-only': { type: 'boolean' },
    config: { type: 'string' },
    'log-level': { type: 'string' },
    state: { type: 'string' },
    persist: { type: 'string' },
    detached: { type: 'boolean' },
  });
  if (values.help) {
    console.log(SIMULATE_HELP);
    return EXIT.ok;
  }
  const options = simulatorOptions(values);
  const persist = values.persist as string | undefined;
  if (persist !== undefined) writableFolder(dirname(resolve(persist)), '--persist');
  const stateFile = (values.state as string | undefined) ?? (persist !== undefined && existsSync(persist) ? persist : undefined);
  const sim = await started(options, stateFile);
  for (const line of describe(sim, values.config as string | undefined, options)) console.log(line);
  const why = await untilStopped({ outliveParent: values.detached === true });
  console.log(`[simulator] ${why}: stopping`);
  const saved = persist === undefined || (await save(sim, persist));
  await sim.close();
  return saved ? EXIT.ok : EXIT.failed;
}

type SimulatorOptions = NonNullable<Parameters<typeof Simulator.start>[0]>;

/** The simulator's options from the command line, or a usage error naming the option. */
function simulatorOptions(values: ReturnType<typeof parse>): SimulatorOptions & { rateLimits: boolean } {
  const basePort = integerOption(values, 'base-port', 1, 65_532);
  const clock = (checked(values, 'clock', 'clock') ?? 'real') as 'real' | 'virtual';
  const timeScale = checked(values, 'time-scale', 'timeScale', Number);
  if (timeScale !== undefined && clock !== 'real') throw new UsageError('--time-scale needs --clock real');
  const logLevel = (checked(values, 'log-level', 'logLevel') ?? DEFAULT_LOG_LEVEL) as LogLevel;
  let deploymentConfig: DeploymentConfig | undefined;
  try {
    deploymentConfig = values.config === undefined ? undefined : loadDeploymentConfig(values.config as string, environment());
  } catch (error) {
    if (error instanceof DeploymentConfigError) throw new UsageError(error.message);
    throw error;
  }
  return {
    seed: (values.seed as string | undefined) ?? DEFAULT_SEED,
    host: values.host as string | undefined,
    ports:
      basePort === undefined
        ? undefined
        : (Object.fromEntries(Object.entries(PORT_OFFSETS).map(([endpoint, offset]) => [endpoint, basePort + offset])) as Record<Endpoint, number>),
    clock,
    timeScale,
    runDurationMs: checked(values, 'run-duration', 'runDurationMs', Number),
    admin: values['no-admin'] !== true,
    rateLimits: values['no-rate-limits'] !== true,
    strict: values.strict === true,
    spec: values['spec-only'] === true ? 'only' : 'all',
    deploymentConfig,
    logLevel,
  };
}

/**
 * The value of `--flag`, read by `read` from its text, once the simulator's `option` can take it
 * (the check startSimulator makes); a usage error naming the flag when it cannot.
 */
function checked<T = string>(values: ReturnType<typeof parse>, flag: string, option: StartOption, read?: (text: string) => T): T | undefined {
  const given = values[flag] as string | undefined;
  const value = given === undefined || read === undefined ? given : read(given);
  const why = refusal(option, `--${flag}`, value, given);
  if (why) throw new UsageError(why);
  return value as T | undefined;
}

/** The simulator listening, with the state of `stateFile` when one is given; a port taken or a file it cannot load is a usage error. */
async function started(options: SimulatorOptions, stateFile: string | undefined): Promise<Simulator> {
  let snapshot: Snapshot | undefined;
  try {
    snapshot = stateFile === undefined ? undefined : (JSON.parse(readFileSync(stateFile, 'utf8')) as Snapshot);
  } catch (error) {
    throw new UsageError(`cannot start from ${stateFile}: ${(error as Error).message}`);
  }
  let sim: Simulator;
  try {
    sim = await Simulator.start(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new UsageError(`cannot listen: ${(error as Error).message}`);
    throw error;
  }
  if (snapshot === undefined) return sim;
  try {
    await sim.restore(snapshot);
  } catch (error) {
    await sim.close();
    if (!(error instanceof ApiError)) throw error;
    throw new UsageError(`cannot start from ${stateFile}: ${error.message}`);
  }
  console.log(`[simulator] state from ${stateFile}`);
  return sim;
}

/** How long a save on exit waits for runs and webhook deliveries to end (real ms). */
const SAVE_PATIENCE_MS = 5_000;

/** Writes the snapshot to `file` whole (a crash never leaves half a file); false when work in progress kept it from being taken. */
async function save(sim: Simulator, file: string): Promise<boolean> {
  const giveUpAt = Date.now() + SAVE_PATIENCE_MS;
  for (;;) {
    try {
      const snapshot = sim.snapshot();
      writeFileSync(`${file}.tmp`, `${JSON.stringify(snapshot)}\n`);
      renameSync(`${file}.tmp`, file);
      console.log(`[simulator] state saved to ${file}`);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) {
        console.error(`${NAME}: state not saved to ${file}: ${(error as Error).message}`);
        return false;
      }
      if (error.status !== 409) throw error;
      if (Date.now() >= giveUpAt) {
        console.error(`${NAME}: state not saved to ${file} (it keeps its previous state): ${error.message}`);
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** What `simulate` prints: URLs, clock, admin path, rate limits, credentials and environment lines; `Ctrl-C to stop` last, once ready. */
function describe(sim: Simulator, configFile: string | undefined, { rateLimits, strict }: { rateLimits: boolean; strict?: boolean }): string[] {
  const info = sim.info();
  const lines: string[] = [];
  const clock = info.clock.kind === 'real' ? `real clock ×${info.clock.time_scale}` : 'virtual clock (moves only through the admin path)';
  lines.push(`[simulator] seed ${info.seed}, ${clock}, time ${info.now}`);
  if (configFile)
    lines.push(`[simulator] deployment configuration ${configFile}: webhooks ${info.deployment_config.http?.disable_webhooks ? 'disabled' : 'enabled'}`);
  for (const [plane, url] of Object.entries(sim.urls)) lines.push(`[simulator] ${plane.padEnd(15)} ${url}`);
  const admin = sim.capabilities().length > 0 ? `${sim.urls['agent-server']}/__sim/info` : 'off (--no-admin): /__sim answers 404';
  lines.push(`[simulator] admin path      ${admin}`);
  if (!rateLimits) lines.push('[simulator] rate limits off (--no-rate-limits): no §8 row refuses a request');
  if (strict) lines.push('[simulator] strict (--strict): a request with an undeclared field or query parameter, or an unlisted value, answers 422');
  if (info.spec === 'only') lines.push('[simulator] spec only (--spec-only): each operation beyond the spec answers 404 naming it');
  const workspaceName = new Map(info.credentials.workspaces.map((w) => [w.id, w.name]));
  lines.push('[simulator] API keys (send as X-Api-Key; x-tenant-id selects a workspace; the platform API of a region knows only its own keys):');
  for (const key of info.credentials.api_keys) {
    const opens = key.workspaces.map((id) => `${workspaceName.get(id)} (${id})`).join(', ');
    const fallback = key.default_workspace ? `default ${workspaceName.get(key.default_workspace)}` : 'no default: x-tenant-id required';
    lines.push(`[simulator]   ${key.key.padEnd(28)} ${key.role}: ${opens}; ${fallback}; region ${key.region?.toUpperCase()}`);
  }
  for (const token of info.credentials.bearer_tokens) lines.push(`[simulator]   Authorization: Bearer ${token.token} (repository listing only)`);
  const primary = info.credentials.api_keys.find((k) => k.role === 'primary')!;
  lines.push('[simulator] for the official clients (langsmith reads the first three; pass LANGGRAPH_API_URL to');
  lines.push('[simulator] @langchain/langgraph-sdk as new Client({ apiUrl: process.env.LANGGRAPH_API_URL })):');
  for (const [name, value] of Object.entries(clientEnvironment(sim.urls, primary.key))) lines.push(`${name}=${value}`);
  lines.push('[simulator] Ctrl-C to stop');
  return lines;
}
