// Each deployment exposes an agent server of its own (spec §1, DEPLOY-AGENT-SERVER): the simulator starts one
// simulated agent server per deployment, at its own URL, and stops them on reset and close.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPlaneServer, type RequestListener } from '../http/server.ts';

export class AgentServerHosting {
  private readonly servers = new Set<Server>();

  /** `listener` builds the HTTP handler of a fresh agent server (its own threads and runs). */
  constructor(private readonly options: { host: string; listener: () => RequestListener }) {}

  async start(): Promise<string> {
    const server = createPlaneServer(this.options.listener());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, this.options.host, () => resolve());
    });
    this.servers.add(server);
    return `http://${this.options.host}:${(server.address() as AddressInfo).port}`;
  }

  async stopAll(): Promise<void> {
    const servers = [...this.servers];
    this.servers.clear();
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  }
}
