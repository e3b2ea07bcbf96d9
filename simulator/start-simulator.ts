// The simulator as a library, for a client's own test suite (any runner): start it in process, read
// its URLs, keys and the environment the official clients read, move its clock, set faults, take
// and restore snapshots, close it. The package exports this module as
// `agent-platform-conformance/simulator`; `simulate` starts the same engine (simulator.ts) with the
// same defaults and prints the same environment.
//
// Its capabilities are the admin protocol's (specs/openapi/simulator-admin.yaml), sent in process: a
// call is checked and answered exactly as the same request over HTTP would be.
//
// Its defaults are a client developer's, not the harness's: the real clock, so runs are seen
// pending or running and then final, `join` returns and time moves without any call; ids still
// come from the seed. The harness's embedded target stays on the virtual clock (cli/embedded.ts).
//
// It never keeps the process running by itself: a test file that forgets close() ends when its
// tests do, the simulator closed then with a warning that says so, rather than hanging after `ok`.
import { type AdminAnswer, type AdminOperationId, contract, type Endpoint } from '../specs/contract.ts';
import type { ClockAdvance, Credentials, Fault, Reset, SimulatorInfo, Snapshot, SpecMode } from '../specs/types/simulator-admin.ts';
import { loadDeploymentConfig } from './deployment-config.ts';
import type { LogLevel } from './log.ts';
import { DEFAULT_SEED, Simulator } from './simulator.ts';
import { checkStartOptions } from './start-options.ts';

export type { ClockAdvance, Credentials, Endpoint, Fault, Reset, SimulatorInfo, Snapshot, SpecMode };

export interface StartOptions {
  /** Seed of the generated ids (default '1'): the same seed gives the same ids. */
  seed?: string;
  /**
   * `real` (default): time follows the wall clock, `timeScale` times faster, and runs, revision
   * builds, crons and webhook retries happen by themselves. `virtual`: time moves only through
   * `advanceClock`, and every timestamp is the same on every start.
   */
  clock?: 'real' | 'virtual';
  /** With the real clock: how many times faster than the wall clock time runs (default 1). */
  timeScale?: number;
  /**
   * How long a run of the built-in graph takes, in simulated ms (default 2,000 on the real clock,
   * 0 on the virtual one). A run whose input asks for `delay_ms` takes that long instead.
   */
  runDurationMs?: number;
  /** A port per plane; a plane not named, or 0, gets a free one (default: all free). */
  ports?: Partial<Record<Endpoint, number>>;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** Enforce the §8 rate-limit table (default true). */
  rateLimits?: boolean;
  /** A deployment configuration file (langgraph.json, or YAML) whose webhook settings the agent server follows. */
  config?: string;
  /**
   * The variables the configuration's `${{ env.NAME }}` webhook headers read (default: none). The
   * simulator reads no environment of its own: pass `process.env` for this process's.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Refuse with 422 a request that the contract's open schemas would let through: an unknown
   * field (`inptu` for `input`), a value the contract lists for an open field (default false:
   * such a request is answered, and the answer names what was wrong in X-Apc-Request-Violations).
   */
  strict?: boolean;
  /**
   * `'all'` (default): every operation of the contract is served, those beyond the spec (the paths
   * the official clients call that the spec does not show) marked as such. `'only'`: each operation
   * beyond the spec answers 404 with a message that names it, so a client's tests show whether it
   * depends on anything the spec does not promise (`simulate --spec-only`).
   */
  spec?: SpecMode;
  /** Start from a snapshot (what `getSnapshot()` answers). */
  state?: Snapshot;
  /**
   * What the simulator logs (default warn: its own errors, and requests the contract finds
   * fault with; info adds a line per request).
   */
  logLevel?: LogLevel;
}

/**
 * The variables the official clients read: langsmith reads the first three (LANGSMITH_TRACING=true
 * turns on tracing by `traceable` and wrapped clients), and LANGGRAPH_API_URL is for
 * `new Client({ apiUrl })` of @langchain/langgraph-sdk.
 */
export interface ClientEnvironment {
  LANGSMITH_ENDPOINT: string;
  LANGSMITH_API_KEY: string;
  LANGSMITH_TRACING: 'true';
  LANGGRAPH_API_URL: string;
  [name: string]: string;
}

/** A refusal of the admin protocol (an invalid fault, advancing a real clock, a snapshot while runs are in progress). */
export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SimulatorError';
  }
}

/**
 * A simulator started in process. Its admin operations are named by the admin protocol's operationIds
 * (specs/openapi/simulator-admin.yaml) and answer what those operations answer.
 */
export interface RunningSimulator extends AsyncDisposable {
  /** Each plane's base URL: the agent server, the control plane, the platform API of each region. */
  readonly urls: Readonly<Record<Endpoint, string>>;
  /** The API key that opens the default workspace (send it as X-Api-Key). */
  readonly apiKey: string;
  /** Every API key, workspace and bearer token the simulator knows. */
  readonly credentials: Credentials;
  /** The environment the official clients read, for `Object.assign(process.env, sim.env)` or a child process. */
  readonly env: ClientEnvironment;
  /** Seed, time, clock, planes, capabilities, credentials. */
  getSimulatorInfo(): Promise<AdminAnswer<'getSimulatorInfo'>>;
  /** The simulated time. */
  getClock(): Promise<AdminAnswer<'getClock'>>;
  /** Moves the virtual clock forward, firing what falls due; refused (409) on the real clock. */
  advanceClock(by: ClockAdvance): Promise<AdminAnswer<'advanceClock'>>;
  /** Forgets all state, faults included; the same seed unless another is given. */
  resetSimulator(body?: Reset): Promise<AdminAnswer<'resetSimulator'>>;
  /** Empties the rate-limit counters; time and data stay. */
  resetRateLimits(): Promise<AdminAnswer<'resetRateLimits'>>;
  /** Sets a fault: the requests it matches fail on purpose until it runs out. */
  setFault(fault: Fault): Promise<AdminAnswer<'setFault'>>;
  /** The faults in force, each with what it has left. */
  listFaults(): Promise<AdminAnswer<'listFaults'>>;
  /** Clears every fault. */
  clearFaults(): Promise<AdminAnswer<'clearFaults'>>;
  /** How many webhook deliveries are on the wire or waiting for their next attempt. */
  getWebhookActivity(): Promise<AdminAnswer<'getWebhookActivity'>>;
  /** The whole state as plain JSON; refused (409) while runs or webhook deliveries are under way. */
  getSnapshot(): Promise<AdminAnswer<'getSnapshot'>>;
  /** Replaces the whole state with a snapshot. */
  restoreSnapshot(snapshot: Snapshot): Promise<AdminAnswer<'restoreSnapshot'>>;
  /** Answers a request to one plane in process, with no socket, as fetch would over HTTP. */
  request(endpoint: Endpoint, path: string, init?: RequestInit): Promise<Response>;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/**
 * Starts a simulator in this process, listening on 127.0.0.1 (a free port per plane unless told
 * otherwise). An option it does not know, or a value an option cannot take, is a TypeError that
 * names the option and what it takes, thrown before anything listens.
 */
export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  checkStartOptions(options);
  const simulator = await Simulator.start({
    seed: options.seed ?? DEFAULT_SEED,
    clock: options.clock ?? 'real',
    timeScale: options.timeScale,
    runDurationMs: options.runDurationMs,
    ports: options.ports,
    host: options.host,
    rateLimits: options.rateLimits,
    strict: options.strict,
    spec: options.spec,
    deploymentConfig: options.config === undefined ? undefined : loadDeploymentConfig(options.config, options.env ?? {}),
    logLevel: options.logLevel ?? 'warn',
    holdsProcess: false,
  });
  const running = new Running(simulator);
  if (options.state === undefined) return running;
  try {
    await running.restoreSnapshot(options.state);
  } catch (error) {
    await running.close();
    // The schema passed (checkStartOptions): what is left is a snapshot this simulator cannot load.
    if (error instanceof SimulatorError) throw new TypeError(`startSimulator: state: ${error.message}`);
    throw error;
  }
  return running;
}

/** The variables the official clients read, for a simulator at `urls` whose default workspace `apiKey` opens. */
export function clientEnvironment(urls: Partial<Record<Endpoint, string>>, apiKey: string): ClientEnvironment {
  return { LANGSMITH_ENDPOINT: urls['platform-api']!, LANGSMITH_API_KEY: apiKey, LANGSMITH_TRACING: 'true', LANGGRAPH_API_URL: urls['agent-server']! };
}

/** The simulators started here and not closed yet. */
const open = new Set<Running>();

/** When nothing else keeps the process running, closes the simulators left open, saying so. */
function closeForgotten(): void {
  for (const running of open) {
    process.emitWarning(
      `the simulator at ${running.urls['agent-server']} was never closed (close()), and nothing else keeps this process running: it closes now. ` +
        'Close it when done with it (in a test suite, in its after hook); to keep one serving on its own, run `agent-platform-conformance simulate`.',
      { code: 'APC_SIMULATOR_NOT_CLOSED' },
    );
    void running.close();
  }
}

class Running implements RunningSimulator {
  readonly urls: Readonly<Record<Endpoint, string>>;
  readonly credentials: Credentials;
  readonly apiKey: string;
  readonly env: ClientEnvironment;

  constructor(private readonly simulator: Simulator) {
    const info = simulator.info();
    this.urls = { ...(simulator.urls as Record<Endpoint, string>) };
    this.credentials = info.credentials;
    this.apiKey = info.credentials.api_keys.find((key) => key.role === 'primary')!.key;
    this.env = clientEnvironment(this.urls, this.apiKey);
    if (open.size === 0 && !process.listeners('beforeExit').includes(closeForgotten)) process.on('beforeExit', closeForgotten);
    open.add(this);
  }

  getSimulatorInfo = () => this.call('getSimulatorInfo');
  getClock = () => this.call('getClock');
  advanceClock = (by: ClockAdvance) => this.call('advanceClock', by);
  resetSimulator = (body: Reset = {}) => this.call('resetSimulator', body);
  resetRateLimits = () => this.call('resetRateLimits');
  setFault = (fault: Fault) => this.call('setFault', fault);
  listFaults = () => this.call('listFaults');
  clearFaults = () => this.call('clearFaults');
  getWebhookActivity = () => this.call('getWebhookActivity');
  getSnapshot = () => this.call('getSnapshot');
  restoreSnapshot = (snapshot: Snapshot) => this.call('restoreSnapshot', snapshot);
  request = (endpoint: Endpoint, path: string, init?: RequestInit) => this.simulator.request(endpoint, path, init);
  close = () => {
    open.delete(this);
    return this.simulator.close();
  };

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * One admin operation, sent in process to the path the contract gives it: its answer's body, or
   * a SimulatorError with the refusal's status and message.
   */
  private async call<Id extends AdminOperationId>(operationId: Id, body?: unknown): Promise<AdminAnswer<Id>> {
    const { method, path } = contract().adminOperation(operationId);
    const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const response = await this.simulator.request('agent-server', path, init);
    const answer = (await response.json()) as unknown;
    if (!response.ok) throw new SimulatorError(response.status, refusalText(answer) ?? `${operationId} answered ${response.status}`);
    return answer as AdminAnswer<Id>;
  }
}

/** The message of an agent-server error body ({"detail": "..."}). */
function refusalText(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' ? detail : detail === undefined ? undefined : JSON.stringify(detail);
}
