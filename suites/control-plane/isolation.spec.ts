// §5: whatever two workspaces do, in whatever order, each sees only its own deployments.
import fc from 'fast-check';
import { expectStatus, precondition } from '../checks/index.ts';
import { expect, test } from '../fixtures.ts';
import type { ApiClient } from '../client.ts';
import { assertProperty } from '../property.ts';
import { deploymentBody, deploymentName, INTEGRATIONS, repositoriesOf, type Deployment, type Repository } from './steps.ts';

type Op = { workspace: 0 | 1; kind: 'create' | 'read' | 'patch' | 'list'; pick: number };

test(
  'for any interleaving of two workspaces\' operations, each workspace sees exactly its own deployments',
  { tag: '@AUTH-CP-WORKSPACE-ISOLATION' },
  async ({ credentials, scope }) => {
    const clients = [credentials.client('control-plane', credentials.apiKey('primary')), credentials.client('control-plane', credentials.apiKey('second-workspace'))];
    const repos = await Promise.all(clients.map(firstRepository));
    const op = fc.record({ workspace: fc.constantFrom(0 as const, 1 as const), kind: fc.constantFrom('create' as const, 'read' as const, 'patch' as const, 'list' as const), pick: fc.nat() });
    let round = 0;
    await assertProperty(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops: Op[]) => {
        const name = deploymentName(scope, `-${round++}`);
        const owned: { id: string; owner: 0 | 1 }[] = [];
        for (const { workspace, kind, pick } of ops) {
          const client = clients[workspace];
          if (kind === 'create') {
            const res = await client.post<Deployment>('/v2/deployments', deploymentBody(repos[workspace], `${name}-${owned.length}`));
            expectStatus(res, [200, 201]);
            owned.push({ id: res.json.id, owner: workspace });
          } else if (kind === 'list') {
            const res = await client.get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${name}&limit=100`);
            expectStatus(res, 200);
            const mine = owned.filter((d) => d.owner === workspace).map((d) => d.id).sort();
            expect(res.json.resources.map((d) => d.id).sort(), res.describe(`workspace ${workspace} lists exactly its own`)).toEqual(mine);
          } else if (owned.length > 0) {
            const target = owned[pick % owned.length];
            const res = kind === 'read' ? await client.get(`/v2/deployments/${target.id}`) : await client.patch(`/v2/deployments/${target.id}`, { source_config: { build_on_push: false } });
            expect(res.status, res.describe(`workspace ${workspace} ${kind}s a deployment of workspace ${target.owner}`)).toBe(target.owner === workspace ? 200 : 404);
          }
        }
      }),
      { numRuns: 10 },
    );
  },
);

async function firstRepository(client: ApiClient): Promise<Repository> {
  const listed = await client.get<{ id: string }[]>(INTEGRATIONS);
  precondition(listed, 'list the integrations');
  test.skip(listed.json.length === 0, 'precondition failed: a workspace has no integration');
  const repos = await client.get<Repository[]>(repositoriesOf(listed.json[0].id));
  precondition(repos, 'list the repositories');
  test.skip(repos.json.length === 0, 'precondition failed: an integration reaches no repository');
  return repos.json[0];
}
