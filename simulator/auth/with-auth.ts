// Authentication as a higher-order handler (MSW's withAuth): the wrapped handler runs only
// for an authenticated request, and receives the workspace it acts in.
import type { IncomingHttpHeaders } from 'node:http';
import type { Handler, Reply, Request } from '../http/router.ts';
import type { Presented, Region, Scheme, Workspace, WorkspaceDirectory } from './workspaces.ts';

export interface Caller {
  workspace: Workspace;
  scheme: Scheme;
}

export type AuthedHandler<Body = unknown> = (request: Request<Body>, caller: Caller) => Reply | Promise<Reply>;

/**
 * The credentials of a request: X-Api-Key, whose name is case-insensitive as Node lowercases header
 * names (AUTH-CP-API-KEY, AUTH-PLATFORM-API-KEY); Authorization: Bearer (AUTH-CP-BEARER); X-Tenant-Id
 * (AUTH-CP-TENANT-HEADER). The last two names are the simulator's choice (AUTH-CP-HEADER-NAMES).
 */
export function presented(headers: IncomingHttpHeaders): Presented {
  const one = (name: string) => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
  };
  const bearer = /^Bearer\s+(\S+)$/i.exec(one('authorization') ?? '')?.[1];
  return { apiKey: one('x-api-key'), bearer, tenantId: one('x-tenant-id') };
}

/**
 * Wraps a handler so it runs only for a caller the directory accepts (spec §5); on a regional
 * server (the platform API), only for a credential of that region (spec §1). The server runs
 * `authenticate` before it validates the request, as the real services check credentials first.
 */
export function withAuth<Body>(directory: WorkspaceDirectory, handler: AuthedHandler<Body>, schemes: Scheme[] = ['api-key'], region?: Region): Handler<Body> {
  const caller = (headers: IncomingHttpHeaders) => directory.resolve(presented(headers), schemes, region);
  return Object.assign((request: Request<Body>) => handler(request, caller(request.headers)), {
    authenticate: (headers: IncomingHttpHeaders) => {
      caller(headers);
    },
  });
}
