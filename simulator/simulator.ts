// The whole simulated platform in one process: one HTTP server per plane, all sharing
// one clock (virtual, or real and scaled) and one seeded id stream. A request that names a
// partition (capability partitions) is answered by a platform of that partition's own instead,
// with its clock and id stream: the harness gives each test one, and tests on parallel workers
// see the same platform whatever runs beside them.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contract, type Endpoint, type Plane } from '../specs/contract.ts';
import type { Capability, RequestBatch, SimulatorInfo, Snapshot, SpecMode } from '../specs/types/simulator-admin.ts';
import { adminRoutes } from './admin/routes.ts';
import { AgentServer } from './agent-server/agent-server.ts';
import { answerBatch, type AnswerOne, type BatchAnswer } from './bulk-requests.ts';
import { agentServerRoutes, agentServerUnserved } from './agent-server/routes.ts';
import { DEFAULT_EPOCH, RealClock, VirtualClock, type Clock } from './clock.ts';
import { NO_DEPLOYMENT_CONFIG, webhookSettings, type DeploymentConfig } from './deployment-config.ts';
import { Faults } from './faults.ts';
import { ApiError, errorBody, unprocessable, type ErrorStyle } from './http/errors.ts';
import type { Route } from './http/router.ts';
import { createPlaneHandler, createPlaneServer, type AdmissionRequest, type PlaneHandler } from './http/server.ts';
import { IdGenerator, type IdState } from './ids.ts';
import { createLog, DEFAULT_LOG_LEVEL, type Log, type LogLevel } from './log.ts';
import { WorkspaceDirectory } from './auth/workspaces.ts';
import { ControlPlane } from './control-plane/control-plane.ts';
import { AgentServerHosting } from './control-plane/hosting.ts';
import { controlPlaneRoutes } from './control-plane/routes.ts';
import { PlatformApi } from './platform-api/platform-api.ts';
import { platformApiRoutes } from './platform-api/routes.ts';
import { clientIp, RateLimiter, refusalMessage, type Region } from './rate-limit.ts';

// The capabilities of the admin path (/__sim), which a real service does not have: the Capability
// enum of specs/openapi/simulator-admin.yaml, which says what each one is. The simulator has
// them all.
const CAPABILITIES = contract().enumOf('simulator-admin', 'Capability') as readonly Capability[];

/** How long a run of the built-in graph takes on the real clock unless told otherwise (simulated ms). */
export const DEFAULT_REAL_RUN_DURATION_MS = 2_000;

interface SimulatorOptions {
  seed?: string;
  /**
   * `virtual` (default): time moves only through the admin path. `real`: time follows the wall
   * clock, `timeScale` times faster, and everything that takes time happens by itself.
   */
  clock?: 'virtual' | 'real';
  /** With the real clock: how many times faster than the wall clock time runs (default 1). */
  timeScale?: number;
  /** Simulated time at start, in ms since the epoch (default: 2026-01-01 virtual, now real). */
  epoch?: number;
  /**
   * How long a run of the built-in graph takes, in simulated ms (default 0 on the virtual
   * clock, DEFAULT_REAL_RUN_DURATION_MS on the real one).
   */
  runDurationMs?: number;
  /** Serve the admin path /__sim (default true); without it the simulator has no capabilities. */
  admin?: boolean;
  host?: string;
  /** Fixed ports per plane; 0 or absent picks a free one. */
  ports?: Partial<Record<Endpoint, number>>;
  /** What the simulator tells of itself (simulator/log.ts; default info). */
  logLevel?: LogLevel;
  /** Errors only: logLevel 'error' unless logLevel says otherwise. */
  quiet?: boolean;
  /** Whether its servers and their connections keep the process running (default true; startSimulator: false). */
  holdsProcess?: boolean;
  /** The deployment configuration file every agent server runs with (§6); none by default. */
  deploymentConfig?: DeploymentConfig;
  /**
   * Webhook origins delivered to another origin, as a tunnel in front of a local receiver
   * would: a stable public name keeps reports free of the receiver's port.
   */
  webhookTunnels?: Record<string, string>;
  /**
   * The deadline of one webhook attempt, connect to the end of the answer's body, in real ms (default
   * 30 s, as the reference); an attempt still unfinished then is cut off and tried again.
   */
  webhookAttemptTimeoutMs?: number;
  /** Enforce the §8 rate-limit table (default true; the bench measures without it too). */
  rateLimits?: boolean;
  /** Refuse with 422 a request the contract's open schemas let through (simulator/http/request-violations.ts); default false. */
  strict?: boolean;
  /** `only`: every operation beyond the spec (x-spec: extra) answers 404 naming it (simulator/http/server.ts); default `all`. */
  spec?: SpecMode;
}

export const DEFAULT_SEED = '1';

/** How many partitions a simulator keeps at most: a run makes one per spec file; more is a client's mistake. */
const MAX_PARTITIONS = 1_000;

/** The seed of a partition's platform: the simulator's seed and the partition's name. */
const partitionSeed = (seed: string, partition: string) => `${seed}/${partition}`;

/** The planes of a snapshot as the stores write them (the admin document leaves them free). */
interface SnapshotPlanes {
  agent_server: ReturnType<AgentServer['snapshot']>;
  control_plane: { deployments: ReturnType<ControlPlane['snapshot']> };
  platform_api: { us: ReturnType<PlatformApi['snapshot']>; eu: ReturnType<PlatformApi['snapshot']> };
}

interface PlaneDefinition {
  endpoint: Endpoint;
  plane: Plane;
  errorStyle: ErrorStyle;
  routes: () => Route[];
  /** Why a path the plane's clients call is not served (PlaneOptions.unserved). */
  unserved?: (path: string) => string | undefined;
}

/**
 * Which rows of the §8 table each server enforces (the rows, one rule each, are specs/rate-limits.yaml):
 * it is the platform's table, so the platform API takes all of it, each region with its own counters
 * and values. The control plane takes all of it too (its /repos rows, and the default rows for the
 * deployment endpoints; it has one address, so US values).
 */
function rateLimiter(endpoint: Endpoint, clock: Clock): RateLimiter {
  const rows = contract().rateLimits;
  // Agent servers take only the two default rows, which §8 implies govern thread, run and assistant
  // endpoints; it shows no other limit of theirs (RATE-OTHER-ENDPOINT-LIMITS).
  if (endpoint === 'agent-server')
    return new RateLimiter(
      rows.filter((r) => r.match.requires === 'api-key' || r.match.requires === 'user-id'),
      'us',
      clock,
    );
  const region: Region = endpoint === 'platform-api-eu' ? 'eu' : 'us';
  return new RateLimiter(rows, region, clock);
}

/** The admission check of one server: refuses with 429 and Retry-After when a row is exhausted (RATE-429, RATE-EXCEEDED-BEHAVIOUR). */
function admission(limiter: RateLimiter): (request: AdmissionRequest) => void {
  return (request) => {
    // Field by field: a spread copy costs a microsecond per request on Node 20, a twentieth of the whole.
    const { method, path, headers } = request;
    const admission = limiter.admit({ method, path, headers, ip: clientIp(request.ip, headers['x-forwarded-for']) });
    if (!admission.admitted) {
      throw new ApiError(429, refusalMessage(admission, limiter.region), undefined, { 'retry-after': String(admission.retryAfterSeconds) });
    }
  };
}

export class Simulator {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly agentServer: AgentServer;
  readonly workspaces = WorkspaceDirectory.fromFixture();
  readonly controlPlane: ControlPlane;
  /** The platform API per region (§1), each holding its own data (REGION-TWO-REGIONS, REGION-DATA-RESIDENCY). */
  readonly platform: { us: PlatformApi; eu: PlatformApi };
  /** Faults on demand (POST /__sim/faults), met by requests of every plane, deployments' agent servers included. */
  readonly faults: Faults;
  private seed: string;
  private readonly log: Log;
  private servers = new Map<Endpoint, Server>();
  /** The platforms of the partitions requests named (capability partitions), by name. */
  private readonly partitions = new Map<string, Simulator>();
  private readonly handlers = new Map<Endpoint, PlaneHandler>();
  /** One limiter per server (hosted deployments included, until they stop), for the admin reset. */
  private readonly limiters = new Set<RateLimiter>();
  /** The agent servers of deployments created on the control plane. */
  private readonly hosting: AgentServerHosting;
  /** Each plane's address; a partition shares its simulator's. */
  readonly urls: Partial<Record<Endpoint, string>>;

  constructor(
    private options: SimulatorOptions = {},
    /** A partition's platform is served at its simulator's addresses. */
    urls: Partial<Record<Endpoint, string>> = {},
  ) {
    this.urls = urls;
    this.seed = options.seed ?? DEFAULT_SEED;
    this.log = createLog(options.logLevel ?? (options.quiet ? 'error' : DEFAULT_LOG_LEVEL));
    this.clock =
      options.clock === 'real' ? new RealClock({ scale: options.timeScale, epoch: options.epoch }) : new VirtualClock(options.epoch ?? DEFAULT_EPOCH);
    this.ids = new IdGenerator(this.seed);
    this.faults = new Faults(this.clock);
    // The configuration file's faults are checked when it is loaded (loadDeploymentConfig).
    for (const fault of options.deploymentConfig?.faults ?? []) this.faults.add(fault, "the faults list of the simulator's config");
    const env = { clock: this.clock, ids: this.ids };
    const agentOptions = {
      runDurationMs: options.runDurationMs ?? (this.clock.kind === 'real' ? DEFAULT_REAL_RUN_DURATION_MS : 0),
      deploymentConfig: options.deploymentConfig,
      webhookTunnels: options.webhookTunnels,
      webhookAttemptTimeoutMs: options.webhookAttemptTimeoutMs,
      log: this.log,
    };
    this.agentServer = new AgentServer(env, {}, { ...agentOptions, selfUrl: () => this.urls['agent-server'] });
    // Each deployment created on the control plane gets an agent server of its own.
    const hosting = (this.hosting = new AgentServerHosting({
      host: options.host ?? '127.0.0.1',
      holdsProcess: options.holdsProcess,
      create: () => {
        // A hosted server learns its own address (for relative webhook URLs) from its first request.
        let self: string | undefined;
        const agent = new AgentServer(env, {}, { ...agentOptions, selfUrl: () => self });
        const limiter = this.limiter('agent-server');
        const handler = createPlaneHandler({
          plane: 'agent-server',
          errorStyle: 'detail-string',
          routes: agentServerRoutes(agent),
          unserved: agentServerUnserved,
          admit: limiter && admission(limiter),
          onInternalError: this.internalError,
          strict: options.strict,
          spec: options.spec,
          log: this.log,
          // A deployment's agent server is of the agent-server plane: its faults apply.
          fault: ({ method, path, operation }) => this.faults.take({ method, path, operation, endpoint: 'agent-server' }),
        });
        return {
          agent,
          dispose: () => {
            if (limiter) this.limiters.delete(limiter);
          },
          listener: (req, res) => {
            self ??= `http://${req.socket.localFamily === 'IPv6' ? `[${req.socket.localAddress}]` : req.socket.localAddress}:${req.socket.localPort}`;
            handler.listener(req, res);
          },
        };
      },
    }));
    // --strict: what an interpretation of the spec would refuse, the platform refuses too (by default it accepts and marks it).
    const platformEnv = { ...env, strict: options.strict === true };
    this.platform = { us: new PlatformApi('us', platformEnv), eu: new PlatformApi('eu', platformEnv) };
    this.controlPlane = new ControlPlane(env, this.platform.us.oauth, hosting);
  }

  private planes(): PlaneDefinition[] {
    return [
      {
        endpoint: 'agent-server',
        plane: 'agent-server',
        errorStyle: 'detail-string',
        routes: () => agentServerRoutes(this.agentServer),
        unserved: agentServerUnserved,
      },
      { endpoint: 'control-plane', plane: 'control-plane', errorStyle: 'fastapi', routes: () => controlPlaneRoutes(this.controlPlane, this.workspaces) },
      { endpoint: 'platform-api', plane: 'platform-api', errorStyle: 'fastapi', routes: () => platformApiRoutes(this.platform.us, this.workspaces) },
      { endpoint: 'platform-api-eu', plane: 'platform-api', errorStyle: 'fastapi', routes: () => platformApiRoutes(this.platform.eu, this.workspaces) },
    ];
  }

  /** A simulator listening on its ports: the engine behind `simulate`, the embedded target and the in-process API. */
  static start(options: SimulatorOptions = {}): Promise<Simulator> {
    return new Simulator(options).start();
  }

  async start(): Promise<this> {
    try {
      await this.listen();
    } catch (error) {
      await this.close();
      throw error;
    }
    return this;
  }

  /** A request the simulator answered 500, or a stream that broke: its own bug, so an error. */
  private readonly internalError = (error: unknown, request: { method: string; path: string }) =>
    this.log.error(`internal error on ${request.method} ${request.path}: ${error instanceof Error ? error.stack : String(error)}`);

  /** Each endpoint's request handling, made once: served by start(), or used in process by request(). */
  private handler(endpoint: Endpoint): PlaneHandler {
    let handler = this.handlers.get(endpoint);
    if (!handler) {
      const definition = this.planes().find((p) => p.endpoint === endpoint)!;
      const limiter = this.limiter(definition.endpoint);
      handler = createPlaneHandler({
        plane: definition.plane,
        errorStyle: definition.errorStyle,
        routes: [...(this.options.admin === false ? [] : adminRoutes(this, definition.endpoint)), ...definition.routes()],
        unserved: definition.unserved,
        admit: limiter && admission(limiter),
        onInternalError: this.internalError,
        strict: this.options.strict,
        spec: this.options.spec,
        log: this.log,
        fault: ({ method, path, operation }) => this.faults.take({ method, path, operation, endpoint }),
      });
      this.handlers.set(endpoint, handler);
    }
    return handler;
  }

  /**
   * sendRequests: a batch made in turn to `endpoint`, each request answered by its own handling in process, as from
   * `ip`; or by `one`, a front's (a broken target applies its mutation to each). None while a fault is in force.
   */
  answerBatch(endpoint: Endpoint, batch: RequestBatch, { ip, one }: { ip?: string; one?: AnswerOne } = {}): Promise<BatchAnswer[]> {
    const handler = this.handler(endpoint);
    const own: AnswerOne = async ({ method, path, headers }) => {
      const response = await handler.request(path, { method, headers }, ip);
      return { status: response.status, retryAfter: response.headers.get('retry-after'), text: () => response.text() };
    };
    return answerBatch(batch, one ?? own, this.faults.list().length);
  }

  /**
   * Answers a request to one endpoint in process, with no port (as Hono's app.request):
   * `await sim.request('agent-server', '/threads', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })`.
   */
  request(endpoint: Endpoint, path: string, init?: RequestInit): Promise<Response> {
    const platform = this.platformOf(new Headers(init?.headers).get(contract().partitionHeader.name));
    if (platform instanceof ApiError) {
      const style = this.planes().find((p) => p.endpoint === endpoint)!.errorStyle;
      return Promise.resolve(Response.json(errorBody(platform, style), { status: platform.status }));
    }
    return platform.handler(endpoint).request(path, init);
  }

  private async listen(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1';
    for (const definition of this.planes()) {
      const server = createPlaneServer((req, res) => this.dispatch(definition, req, res), { holdsProcess: this.options.holdsProcess });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.options.ports?.[definition.endpoint] ?? 0, host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      this.servers.set(definition.endpoint, server);
      this.urls[definition.endpoint] = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    }
  }

  /** Hands a request to the platform it names: a partition's, or this one. */
  private dispatch(definition: PlaneDefinition, req: IncomingMessage, res: ServerResponse): void {
    const name = req.headers[contract().partitionHeader.name];
    const platform = this.platformOf(typeof name === 'string' ? name : null);
    if (platform instanceof ApiError) {
      req.resume();
      res.writeHead(platform.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody(platform, definition.errorStyle)));
      return;
    }
    platform.handler(definition.endpoint).listener(req, res);
  }

  /**
   * The platform that answers a request naming partition `name` (or none): that partition's, made
   * at its first request; a refusal when the name is too long or there can be no more.
   */
  private platformOf(name: string | null): Simulator | ApiError {
    // Without the admin path the simulator has no capabilities, partitions included.
    if (!name || this.options.admin === false) return this;
    const found = this.partitions.get(name);
    if (found) return found;
    const { name: header, maxLength } = contract().partitionHeader;
    if (name.length > maxLength) return new ApiError(400, `The ${header} header takes at most ${maxLength} characters`);
    if (this.partitions.size >= MAX_PARTITIONS) {
      return new ApiError(400, `This simulator keeps at most ${MAX_PARTITIONS} partitions: reset it (POST /__sim/reset without ${header}) to start over`);
    }
    // Ports are its simulator's: a partition listens on none of its own (but its deployments' agent servers).
    const partition = new Simulator({ ...this.options, seed: partitionSeed(this.seed, name), ports: undefined }, this.urls);
    this.partitions.set(name, partition);
    return partition;
  }

  /** Forgets every partition, closing the agent servers of their deployments. */
  private async dropPartitions(): Promise<void> {
    const dropped = [...this.partitions.values()];
    this.partitions.clear();
    await Promise.all(dropped.map((partition) => partition.close()));
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.servers.values()].map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
    this.servers.clear();
    await Promise.all([this.controlPlane.close(), this.dropPartitions()]);
  }

  /** A new limiter for one server, or none when rate limits are off. */
  private limiter(endpoint: Endpoint): RateLimiter | undefined {
    if (this.options.rateLimits === false) return undefined;
    const limiter = rateLimiter(endpoint, this.clock);
    this.limiters.add(limiter);
    return limiter;
  }

  /** Moves the virtual clock forward, firing what falls due (POST /__sim/clock/advance). */
  advance(ms: number): void {
    if (!(this.clock instanceof VirtualClock))
      throw new ApiError(409, 'this simulator runs on the real clock (simulate --clock real): its time cannot be advanced');
    this.clock.advance(ms);
  }

  /** Empties every rate-limit counter (POST /__sim/rate-limits/reset). */
  resetRateLimits(): void {
    for (const limiter of this.limiters) limiter.reset();
  }

  /** Webhook deliveries of every agent server on the wire or waiting for their next attempt (GET /__sim/webhooks). */
  webhooksUnderWay(): number {
    return [this.agentServer, ...this.hosting.agents()].reduce((sum, agent) => sum + agent.webhooks.underWay(), 0);
  }

  /**
   * Forgets all state, faults included, and starts over: same seed unless a new one is given. The
   * simulator's own reset forgets its partitions too; a partition's, only that partition.
   */
  reset(seed?: string, timeScale?: number): void {
    if (timeScale !== undefined) {
      if (!(this.clock instanceof RealClock))
        throw new ApiError(409, 'this simulator runs on the virtual clock (simulate --clock virtual): it has no time scale to set');
      this.clock.rescale(timeScale);
      // Partitions made after the reset run at the new scale too.
      this.options = { ...this.options, timeScale };
    }
    if (seed !== undefined) this.seed = seed;
    void this.dropPartitions();
    this.resetRateLimits();
    this.faults.clear();
    this.clock.reset();
    this.ids.reseed(this.seed);
    this.agentServer.reset();
    this.controlPlane.reset();
    this.platform.us.reset();
    this.platform.eu.reset();
  }

  /**
   * The whole state as plain JSON (GET /__sim/snapshot): seed, time, the id stream's position and
   * every plane's records. Refused (409) while runs or webhook deliveries are under way.
   */
  snapshot(): Snapshot {
    return {
      version: 1,
      seed: this.seed,
      clock: { now: this.clock.now() },
      ids: this.ids.state(),
      planes: {
        agent_server: this.agentServer.snapshot(),
        control_plane: { deployments: this.controlPlane.snapshot() },
        platform_api: { us: this.platform.us.snapshot(), eu: this.platform.eu.snapshot() },
      },
    };
  }

  /**
   * Replaces the whole state with a snapshot (PUT /__sim/snapshot, simulate --state); the
   * rate-limit counters start empty. Deployments' agent servers listen again, each on its old
   * port when it is free, else on a new one, which the deployment's URL then names.
   */
  async restore(snapshot: Snapshot): Promise<void> {
    const violations = contract().validateSchema('simulator-admin', 'Snapshot', snapshot);
    if (violations.length > 0) throw unprocessable(`Not a snapshot: ${violations.map((v) => `${v.at || '/'} ${v.message}`).join('; ')}`);
    // Rehearsed on a scratch simulator first (virtual clock, no servers), so that a snapshot
    // that does not load is refused with this simulator left as it was.
    try {
      new Simulator({ seed: snapshot.seed, quiet: true, rateLimits: false }).load(snapshot);
    } catch (error) {
      throw unprocessable(`Not a snapshot this simulator can load: ${(error as Error).message}`);
    }
    await this.controlPlane.close();
    this.load(snapshot);
    await this.controlPlane.rehost();
  }

  private load(snapshot: Snapshot): void {
    const planes = snapshot.planes as SnapshotPlanes;
    this.resetRateLimits();
    // On the real clock time never goes back: a saved state loads at the later of its time and the
    // clock's, and what fell due in between happens at once (a dev server restarted with --persist).
    this.clock.reset(this.clock.kind === 'real' ? Math.max(snapshot.clock.now, this.clock.now()) : snapshot.clock.now);
    this.ids.restore(snapshot.ids as IdState);
    this.agentServer.restore(planes.agent_server);
    this.controlPlane.restore(planes.control_plane.deployments);
    this.platform.us.restore(planes.platform_api.us);
    this.platform.eu.restore(planes.platform_api.eu);
    this.seed = snapshot.seed;
  }

  /** The capabilities this simulator offers: none without the admin path; no virtual clock on the real one. */
  capabilities(): Capability[] {
    if (this.options.admin === false) return [];
    return CAPABILITIES.filter((c) => c !== 'virtual-clock' || this.clock.kind === 'virtual');
  }

  info(): SimulatorInfo {
    return {
      simulator: 'agent-platform-simulator',
      seed: this.seed,
      now: this.clock.iso(),
      planes: this.urls,
      capabilities: this.capabilities(),
      clock: this.clock.kind === 'real' ? { kind: 'real', time_scale: (this.clock as RealClock).scale } : { kind: 'virtual' },
      credentials: this.workspaces.describe(),
      // The webhook settings as written (environment references unresolved), so the suites
      // know which §6 behaviour to expect of this target.
      deployment_config: webhookSettings(this.options.deploymentConfig ?? NO_DEPLOYMENT_CONFIG),
      // What it serves, so that a harness knows a spec-only simulator serves nothing beyond the spec.
      spec: this.options.spec ?? 'all',
    };
  }
}
