// The whole simulated platform in one process: one HTTP server per plane, all sharing
// one virtual clock and one seeded id stream.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Endpoint, Plane } from '../specs/contract.ts';
import { adminRoutes } from './admin/routes.ts';
import { AgentServer } from './agent-server/agent-server.ts';
import { agentServerRoutes } from './agent-server/routes.ts';
import { DEFAULT_EPOCH, VirtualClock } from './clock.ts';
import type { ErrorStyle } from './http/errors.ts';
import type { Route } from './http/router.ts';
import { createPlaneHandler } from './http/server.ts';
import { IdGenerator } from './ids.ts';
import { WorkspaceDirectory } from './auth/workspaces.ts';
import { ControlPlane } from './control-plane/control-plane.ts';
import { AgentServerHosting } from './control-plane/hosting.ts';
import { controlPlaneRoutes } from './control-plane/routes.ts';
import { PlatformApi } from './platform-api/platform-api.ts';
import { platformApiRoutes } from './platform-api/routes.ts';

// workspace-credentials: /__sim/info publishes API keys of several workspaces; oauth-completion:
// an OAuth flow's url completes it; revision-faults: a revision can be made to fail.
export const CAPABILITIES = ['virtual-clock', 'reset', 'seeded-ids', 'workspace-credentials', 'oauth-completion', 'revision-faults'] as const;
export type Capability = (typeof CAPABILITIES)[number] | 'fault-injection';

export interface SimulatorOptions {
  seed?: string;
  /** Virtual time at start, in ms since the epoch. */
  epoch?: number;
  host?: string;
  /** Fixed ports per plane; 0 or absent picks a free one. */
  ports?: Partial<Record<Endpoint, number>>;
  quiet?: boolean;
}

export const DEFAULT_SEED = '1';

interface PlaneDefinition {
  endpoint: Endpoint;
  plane: Plane;
  errorStyle: ErrorStyle;
  routes: () => Route[];
}

export class Simulator {
  readonly clock: VirtualClock;
  readonly ids: IdGenerator;
  readonly agentServer: AgentServer;
  readonly workspaces = WorkspaceDirectory.fromFixture();
  readonly controlPlane: ControlPlane;
  /** The platform API per region (§1), each holding its own data. */
  readonly platform: { us: PlatformApi; eu: PlatformApi };
  private seed: string;
  private servers = new Map<Endpoint, Server>();
  readonly urls: Partial<Record<Endpoint, string>> = {};

  constructor(private readonly options: SimulatorOptions = {}) {
    this.seed = options.seed ?? DEFAULT_SEED;
    this.clock = new VirtualClock(options.epoch ?? DEFAULT_EPOCH);
    this.ids = new IdGenerator(this.seed);
    this.agentServer = new AgentServer({ clock: this.clock, ids: this.ids });
    const env = { clock: this.clock, ids: this.ids };
    // Each deployment created on the control plane gets an agent server of its own.
    const hosting = new AgentServerHosting({
      host: options.host ?? '127.0.0.1',
      listener: () => createPlaneHandler({ plane: 'agent-server', errorStyle: 'detail-string', routes: agentServerRoutes(new AgentServer(env)) }),
    });
    this.controlPlane = new ControlPlane(env, hosting);
    this.platform = { us: new PlatformApi('us', env), eu: new PlatformApi('eu', env) };
  }

  private planes(): PlaneDefinition[] {
    return [
      { endpoint: 'agent-server', plane: 'agent-server', errorStyle: 'detail-string', routes: () => agentServerRoutes(this.agentServer) },
      { endpoint: 'control-plane', plane: 'control-plane', errorStyle: 'fastapi', routes: () => controlPlaneRoutes(this.controlPlane, this.workspaces) },
      { endpoint: 'platform-api', plane: 'platform-api', errorStyle: 'fastapi', routes: () => platformApiRoutes(this.platform.us, this.workspaces) },
      { endpoint: 'platform-api-eu', plane: 'platform-api', errorStyle: 'fastapi', routes: () => platformApiRoutes(this.platform.eu, this.workspaces) },
    ];
  }

  async start(): Promise<this> {
    const host = this.options.host ?? '127.0.0.1';
    for (const definition of this.planes()) {
      const handler = createPlaneHandler({
        plane: definition.plane,
        errorStyle: definition.errorStyle,
        routes: [...adminRoutes(this), ...definition.routes()],
      });
      const server = createServer(handler);
      server.keepAliveTimeout = 5000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.options.ports?.[definition.endpoint] ?? 0, host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      this.servers.set(definition.endpoint, server);
      this.urls[definition.endpoint] = `http://${host}:${port}`;
    }
    return this;
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
    await this.controlPlane.close();
  }

  /** Forgets all state and starts over: same seed unless a new one is given. */
  reset(seed?: string): void {
    if (seed !== undefined) this.seed = seed;
    this.clock.reset();
    this.ids.reseed(this.seed);
    this.agentServer.reset();
    this.controlPlane.reset();
    this.platform.us.reset();
    this.platform.eu.reset();
  }

  info() {
    return {
      simulator: 'agent-platform-simulator',
      seed: this.seed,
      now: this.clock.iso(),
      planes: this.urls,
      capabilities: [...CAPABILITIES],
      credentials: this.workspaces.describe(),
    };
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return new Simulator(options).start();
}
