// §5: whatever two workspaces do, in whatever order, each sees only its own deployments.
import fc from 'fast-check';
import { expectStatus } from '../../harness/checks/index.ts';
import { expect, test } from './fixtures.ts';
import { assertProperty } from '../../harness/property.ts';
import { deploymentBody, deploymentName, repository, type Deployment } from './deployments-steps.ts';

type Op = { workspace: 0 | 1; kind: 'create' | 'read' | 'patch' | 'list'; pick: number };

test("for any interleaving of two workspaces' operations, each workspace sees exactly its own deployments", { tag: '@AUTH-CP-WORKSPACE-ISOLATION' }, async ({
  credentials,
  testKey,
}) => {
  const clients = [
    credentials.client('control-plane', credentials.apiKey('primary')),
    credentials.client('control-plane', credentials.apiKey('second-workspace')),
  ];
  // One after the other: each lists integrations, then their repositories, and two at once would
  // interleave those requests in whichever order the answers came, changing the exchanges' ids.
  const repos = [await repository(clients[0]), await repository(clients[1])];
  const op = fc.record({
    workspace: fc.constantFrom(0 as const, 1 as const),
    kind: fc.constantFrom('create' as const, 'read' as const, 'patch' as const, 'list' as const),
    pick: fc.nat(),
  });
  let round = 0;
  // Every sequence creates in both workspaces, so there is always another workspace's deployment to miss.
  const createsInBoth = (ops: Op[]) => ([0, 1] as const).every((w) => ops.some((o) => o.workspace === w && o.kind === 'create'));
  await assertProperty(
    fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 8 }).filter(createsInBoth), async (ops: Op[]) => {
      const name = deploymentName(testKey, `-${round++}`);
      const owned: { id: string; owner: 0 | 1 }[] = [];
      const list = async (workspace: 0 | 1) => {
        const res = await clients[workspace].get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${name}&limit=100`);
        expectStatus(res, 200);
        const mine = owned
          .filter((d) => d.owner === workspace)
          .map((d) => d.id)
          .sort();
        expect(res.json.resources.map((d) => d.id).sort(), res.describe(`workspace ${workspace} lists exactly its own`)).toEqual(mine);
      };
      /** Its own deployment answers; another workspace's is not found (any 4xx: the status for unknown ids is not shown, §7). */
      const touch = async (workspace: 0 | 1, kind: 'read' | 'patch', target: { id: string; owner: 0 | 1 }) => {
        const client = clients[workspace];
        const path = `/v2/deployments/${target.id}`;
        const res = kind === 'read' ? await client.get(path) : await client.patch(path, { source_config: { build_on_push: false } });
        const answered = target.owner === workspace ? res.status >= 200 && res.status < 300 : res.status >= 400 && res.status < 500;
        expect(answered, res.describe(`workspace ${workspace} ${kind}s a deployment of workspace ${target.owner}`)).toBe(true);
      };
      for (const { workspace, kind, pick } of ops) {
        if (kind === 'create') {
          const res = await clients[workspace].post<Deployment>('/v2/deployments', deploymentBody(repos[workspace], `${name}-${owned.length}`));
          expectStatus(res, '2xx');
          owned.push({ id: res.json.id, owner: workspace });
        } else if (kind === 'list') {
          await list(workspace);
        } else if (owned.length > 0) {
          await touch(workspace, kind, owned[pick % owned.length]);
        }
      }
      // Whatever the order of the operations, each workspace finally reads and lists what both created.
      for (const workspace of [0, 1] as const) {
        for (const target of owned) await touch(workspace, 'read', target);
        await list(workspace);
      }
    }),
    { numRuns: 10 },
  );
});
