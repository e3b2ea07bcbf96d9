// Each deployment exposes an agent server of its own (spec §1): the simulator starts one
// simulated agent server per deployment, at its own URL, and stops one when its deployment is
// deleted, and them all on reset and close.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentServer } from '../agent-server/agent-server.ts';
import { createPlaneServer, type RequestListener } from '../http/server.ts';

/** A fresh agent server (its own threads and runs) and the HTTP handler that serves it. */
export interface HostedAgentServer {
  agent: AgentServer;
  listener: RequestListener;
  /** Lets go of what the server holds outside itself (its rate limiter), once it stopped. */
  dispose?: () => void;
}

export class AgentServerHosting {
  /** By URL. */
  private readonly servers = new Map<string, { server: Server; hosted: HostedAgentServer }>();

  constructor(private readonly options: { host: string; create: () => HostedAgentServer; holdsProcess?: boolean }) {}

  create(): HostedAgentServer {
    return this.options.create();
  }

  /** Serves an agent server (a fresh one by default) on `port`, or a free port if that one is taken, and answers its URL. */
  async start(hosted: HostedAgentServer = this.create(), port = 0): Promise<string> {
    let server: Server;
    try {
      server = await this.listen(hosted.listener, port);
    } catch (error) {
      if (port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      server = await this.listen(hosted.listener, 0);
    }
    const url = `http://${this.options.host}:${(server.address() as AddressInfo).port}`;
    this.servers.set(url, { server, hosted });
    return url;
  }

  /** The agent server served at `url`, if this hosting serves one there. */
  agentAt(url: string): AgentServer | undefined {
    return this.servers.get(url)?.hosted.agent;
  }

  /** The agent servers it serves, one per deployment. */
  agents(): AgentServer[] {
    return [...this.servers.values()].map((served) => served.hosted.agent);
  }

  /** Stops the agent server at `url` (its deployment was deleted); none there is no error. */
  async stop(url: string): Promise<void> {
    const served = this.servers.get(url);
    if (!served) return;
    this.servers.delete(url);
    await close(served);
  }

  async stopAll(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(servers.map(close));
  }

  private async listen(listener: RequestListener, port: number): Promise<Server> {
    const server = createPlaneServer(listener, { holdsProcess: this.options.holdsProcess });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.options.host, () => resolve());
    });
    return server;
  }
}

/** Closes a server promptly, cutting off requests still in progress, then disposes of what it held. */
function close({ server, hosted }: { server: Server; hosted: HostedAgentServer }): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      hosted.dispose?.();
      resolve();
    });
  });
}
