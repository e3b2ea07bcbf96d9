// The simulated control plane: the repository catalogue and the deployments, sharing the
// simulator's clock and ids, the hosting that gives each deployment its agent server, and the
// OAuth flows of authentication (§9: served under v2), which it shares with the US platform API:
// one authentication service reached at both addresses, as the real one is (LangSmith docs "Agent Auth", docs.langchain.com/langsmith/agent-auth).
import type { Clock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import type { OAuthFlows } from '../platform-api/oauth.ts';
import { DeploymentStore } from './deployments.ts';
import type { AgentServerHosting } from './hosting.ts';
import { RepositoryCatalog } from './repositories.ts';

export class ControlPlane {
  readonly repositories = RepositoryCatalog.fromFixture();
  readonly deployments: DeploymentStore;

  constructor(
    env: { clock: Clock; ids: IdGenerator },
    readonly oauth: OAuthFlows,
    private readonly hosting?: AgentServerHosting,
  ) {
    this.deployments = new DeploymentStore({ ...env, repositories: this.repositories, host: hosting && (() => hosting.start()) });
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
