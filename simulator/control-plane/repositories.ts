// Source-code host integrations and their repositories (spec §2.1, §4.1), from the fixture
// fixtures/platform/integrations.yaml. An integration belongs to one workspace: from any
// other workspace it does not exist.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { notFound } from '../http/errors.ts';
import type { Integration, Repository } from '../../specs/types/control-plane.ts';
import type { Workspace } from '../auth/workspaces.ts';

interface FixtureIntegration extends Integration {
  workspace: string;
  /** As the fixture lists them: the integration's id is added when they are listed. */
  repositories: Pick<Repository, 'id' | 'name' | 'owner' | 'url' | 'default_branch'>[];
}

const FIXTURE = new URL('../../fixtures/platform/integrations.yaml', import.meta.url);
let parsedFixture: FixtureIntegration[] | undefined;

export class RepositoryCatalog {
  constructor(private readonly integrations: FixtureIntegration[]) {}

  /** The fixture's catalogue; the file is parsed once per process (each partition of a simulator makes one), and never changed. */
  static fromFixture(): RepositoryCatalog {
    parsedFixture ??= (parseYaml(readFileSync(FIXTURE, 'utf8')) as { integrations: FixtureIntegration[] }).integrations;
    return new RepositoryCatalog(parsedFixture);
  }

  list(workspace: Workspace): Integration[] {
    return this.integrations.filter((i) => i.workspace === workspace.name).map(({ id, installation_id, name }) => ({ id, installation_id, name }));
  }

  repositories(workspace: Workspace, integrationId: string): Repository[] {
    const integration = this.integrations.find((i) => i.id === integrationId.toLowerCase() && i.workspace === workspace.name);
    if (!integration) throw notFound(`Integration ${integrationId} not found.`); // REPO-LIST-UNKNOWN-INTEGRATION
    return integration.repositories.map((r) => ({ host_integration_id: integration.id, ...r }));
  }

  /** The repository at `url` that the integration reaches, if any. */
  find(workspace: Workspace, integrationId: string, url: string): Repository | undefined {
    const integration = this.integrations.find((i) => i.id === integrationId.toLowerCase() && i.workspace === workspace.name);
    return integration ? this.repositories(workspace, integration.id).find((r) => r.url === url) : undefined;
  }

  knows(workspace: Workspace, integrationId: string): boolean {
    return this.integrations.some((i) => i.id === integrationId.toLowerCase() && i.workspace === workspace.name);
  }
}
