// The control plane's route table (spec §4.1, §5, §9): one handler per operation of
// specs/openapi/control-plane.yaml, at its paths under /v1 and /v2. Every row but the OpenAPI
// document needs X-Api-Key; the repository listing also takes a bearer token. Authentication is
// served under v2 (§9), with the body and result of §4.2.
import { contract } from '../../specs/contract.ts';
import type { operations } from '../../specs/types/control-plane.ts';
import { withAuth, type AuthedHandler } from '../auth/with-auth.ts';
import type { WorkspaceDirectory } from '../auth/workspaces.ts';
import { compileTable, type Request, type Route } from '../http/router.ts';
import type { ControlPlane } from './control-plane.ts';

const page = (req: Request) => ({
  limit: req.query.has('limit') ? Number(req.query.get('limit')) : undefined,
  offset: req.query.has('offset') ? Number(req.query.get('offset')) : undefined,
});

export function controlPlaneRoutes({ repositories, deployments, oauth }: ControlPlane, directory: WorkspaceDirectory): Route[] {
  const authed = <Body>(handler: AuthedHandler<Body>) => withAuth(directory, handler);
  return compileTable<operations>('control-plane', {
    getOpenApiDocument: () => ({ body: contract().documents['control-plane'] }), // VERSION-CP-OPENAPI, VERSION-CP-OPENAPI-JSON
    listIntegrations: authed((_req, { workspace }) => ({ body: repositories.list(workspace) })), // INTEGRATION-LIST
    // AUTH-REPOS-SCHEMES: an API key alone, or a bearer token, with x-tenant-id.
    listRepositories: withAuth(directory, (req, { workspace }) => ({ body: repositories.repositories(workspace, req.params.integration_id) }), [
      'api-key',
      'bearer',
    ]),
    listDeployments: authed((req, { workspace }) => ({
      body: deployments.list(workspace, { ...page(req), nameContains: req.query.get('name_contains') ?? undefined }),
    })),
    createDeployment: authed(async (req, { workspace }) => ({ status: 201, body: await deployments.create(workspace, req.body) })),
    getDeployment: authed((req, { workspace }) => ({ body: deployments.get(workspace, req.params.deployment_id) })),
    patchDeployment: authed((req, { workspace }) => ({ body: deployments.patch(workspace, req.params.deployment_id, req.body) })),
    /** DEPLOY-DELETE. */
    deleteDeployment: authed((req, { workspace }) => {
      deployments.delete(workspace, req.params.deployment_id);
      return { status: 204 };
    }),
    listRevisions: authed((req, { workspace }) => ({ body: deployments.revisions(workspace, req.params.deployment_id, page(req)) })),
    getRevision: authed((req, { workspace }) => ({ body: deployments.revision(workspace, req.params.deployment_id, req.params.revision_id) })),
    authenticate: authed((req, { workspace }) => {
      const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
      return { body: oauth.authenticate(workspace.id, req.body, origin) };
    }),
  });
}
