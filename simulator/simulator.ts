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

export const CAPABILITIES = ['virtual-clock', 'reset', 'seeded-ids'] as const;
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
  private seed: string;
  private servers = new Map<Endpoint, Server>();
  readonly urls: Partial<Record<Endpoint, string>> = {};

  constructor(private readonly options: SimulatorOptions = {}) {
    this.seed = options.seed ?? DEFAULT_SEED;
    this.clock = new VirtualClock(options.epoch ?? DEFAULT_EPOCH);
    this.ids = new IdGenerator(this.seed);
    this.agentServer = new AgentServer({ clock: this.clock, ids: this.ids });
  }

  private planes(): PlaneDefinition[] {
    return [{ endpoint: 'agent-server', plane: 'agent-server', errorStyle: 'detail-string', routes: () => agentServerRoutes(this.agentServer) }];
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
  }

  /** Forgets all state and starts over: same seed unless a new one is given. */
  reset(seed?: string): void {
    if (seed !== undefined) this.seed = seed;
    this.clock.reset();
    this.ids.reseed(this.seed);
    this.agentServer.reset();
  }

  info() {
    return {
      simulator: 'agent-platform-simulator',
      seed: this.seed,
      now: this.clock.iso(),
      planes: this.urls,
      capabilities: [...CAPABILITIES],
    };
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return new Simulator(options).start();
}
