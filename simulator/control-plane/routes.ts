// The control plane's route table (spec §4.1, §5, §9), one row per endpoint. Every row but
// the OpenAPI document needs X-Api-Key; the repository listing also takes a bearer token.
// Authentication is served under v2 (§9), with the body and result of §4.2.
import { contract } from '../../specs/contract.ts';
import { withAuth } from '../auth/with-auth.ts';
import type { WorkspaceDirectory } from '../auth/workspaces.ts';
import { route, type Request, type Route } from '../http/router.ts';
import type { AuthenticateRequest } from '../platform-api/oauth.ts';
import type { ControlPlane } from './control-plane.ts';

type Json = Record<string, unknown>;

const page = (req: Request) => ({
  limit: req.query.has('limit') ? Number(req.query.get('limit')) : undefined,
  offset: req.query.has('offset') ? Number(req.query.get('offset')) : undefined,
});

export function controlPlaneRoutes({ repositories, deployments, oauth }: ControlPlane, directory: WorkspaceDirectory): Route[] {
  const authed = (handler: Parameters<typeof withAuth>[1]) => withAuth(directory, handler);
  return [
    route('GET', '/openapi.json', 'getOpenApiDocument', () => ({ body: contract().documents['control-plane'] })),
    route('GET', '/v1/integrations/sourcehost/install', 'listIntegrations', authed((_req, { workspace }) => ({ body: repositories.list(workspace) }))),
    route(
      'GET',
      '/v1/integrations/sourcehost/{integration_id}/repos',
      'listRepositories',
      withAuth(directory, (req, { workspace }) => ({ body: repositories.repositories(workspace, req.params.integration_id) }), ['api-key', 'bearer']),
    ),
    route(
      'GET',
      '/v2/deployments',
      'listDeployments',
      authed((req, { workspace }) => ({ body: deployments.list(workspace, { ...page(req), nameContains: req.query.get('name_contains') ?? undefined }) })),
    ),
    route(
      'POST',
      '/v2/deployments',
      'createDeployment',
      authed(async (req, { workspace }) => ({ status: 201, body: await deployments.create(workspace, req.body as Json) })),
    ),
    route('GET', '/v2/deployments/{deployment_id}', 'getDeployment', authed((req, { workspace }) => ({ body: deployments.get(workspace, req.params.deployment_id) }))),
    route(
      'PATCH',
      '/v2/deployments/{deployment_id}',
      'patchDeployment',
      authed((req, { workspace }) => ({ body: deployments.patch(workspace, req.params.deployment_id, req.body as Json) })),
    ),
    route(
      'DELETE',
      '/v2/deployments/{deployment_id}',
      'deleteDeployment',
      authed((req, { workspace }) => {
        deployments.delete(workspace, req.params.deployment_id);
        return { status: 204 };
      }),
    ),
    route(
      'GET',
      '/v2/deployments/{deployment_id}/revisions',
      'listRevisions',
      authed((req, { workspace }) => ({ body: deployments.revisions(workspace, req.params.deployment_id, page(req)) })),
    ),
    route(
      'GET',
      '/v2/deployments/{deployment_id}/revisions/{revision_id}',
      'getRevision',
      authed((req, { workspace }) => ({ body: deployments.revision(workspace, req.params.deployment_id, req.params.revision_id) })),
    ),
    route(
      'POST',
      '/v2/auth/authenticate',
      'authenticate',
      authed((req, { workspace }) => {
        const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
        return { body: oauth.authenticate(workspace.id, req.body as AuthenticateRequest, origin) };
      }),
    ),
  ];
}
