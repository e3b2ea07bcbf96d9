// The simulated control plane: the repository catalogue and the deployments, sharing the
// simulator's clock and ids, the hosting that gives each deployment its agent server, and the
// OAuth flows of authentication (§9: served under v2), which it shares with the US platform API:
// one authentication service reached at both addresses, as the real one is (LangSmith docs "Agent Auth", docs.langchain.com/langsmith/agent-auth).
import type { Clock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import type { OAuthFlows } from '../platform-api/oauth.ts';
import { DeploymentStore } from './deployments.ts';
import type { AgentServerHosting, HostedAgentServer } from './hosting.ts';
import { RepositoryCatalog } from './repositories.ts';

export class ControlPlane {
  readonly repositories = RepositoryCatalog.fromFixture();
  readonly deployments: DeploymentStore;

  constructor(
    env: { clock: Clock; ids: IdGenerator },
    readonly oauth: OAuthFlows,
    private readonly hosting?: AgentServerHosting,
  ) {
    this.deployments = new DeploymentStore({
      ...env,
      repositories: this.repositories,
      host: hosting && (() => hosting.start()),
      // A deleted deployment's agent server stops in the background.
      unhost: hosting && ((url) => void hosting.stop(url)),
    });
  }

  /** Restored agent servers of deployments, served again by rehost(). */
  private restored: { deploymentId: string; url: string; hosted: HostedAgentServer }[] = [];

  /** The deployments, each with the state of the agent server it hosts. */
  snapshot() {
    return this.deployments.snapshot().map((d) => {
      const agent = d.url === undefined ? undefined : this.hosting?.agentAt(d.url);
      return { ...d, agentServer: agent?.snapshot() };
    });
  }

  /** Puts the deployments back and prepares their agent servers; rehost() serves them (after close()). */
  restore(snapshot: ReturnType<ControlPlane['snapshot']>): void {
    this.restored = snapshot.flatMap(({ agentServer, ...d }) => {
      if (!this.hosting || d.url === undefined || !agentServer) return [];
      const hosted = this.hosting.create();
      hosted.agent.restore(agentServer);
      return [{ deploymentId: d.deployment.id, url: d.url, hosted }];
    });
    this.deployments.restore(snapshot.map(({ agentServer: _a, ...d }) => d));
  }

  /** Serves the restored agent servers, each on its old port when it is free (else its deployment's URL changes). */
  async rehost(): Promise<void> {
    for (const { deploymentId, url, hosted } of this.restored.splice(0)) {
      const now = await this.hosting!.start(hosted, Number(new URL(url).port));
      if (now !== url) this.deployments.moved(deploymentId, now);
    }
  }

  reset(): void {
    this.deployments.clear();
    // The forgotten deployments' agent servers stop in the background.
    void this.hosting?.stopAll();
  }

  close(): Promise<void> {
    return this.hosting?.stopAll() ?? Promise.resolve();
  }
}
