// Authentication as a handler wrapper, without a socket: which credentials a request presents
// (headers read as node gives them), and that the wrapped handler runs only for a caller the
// workspace directory accepts, with that caller's workspace (spec §5).
import { expect, test } from '@playwright/test';
import type { IncomingHttpHeaders } from 'node:http';
import { refusalOf } from '../http/errors.ts';
import type { Reply, Request } from '../http/router.ts';
import { presented, withAuth, type Caller } from './with-auth.ts';
import { WorkspaceDirectory } from './workspaces.ts';

const directory = WorkspaceDirectory.fromFixture();
const published = directory.describe();
const key = (role: string) => published.api_keys.find((k) => k.role === role)!.key;
const workspace = (name: string) => directory.workspaces.find((w) => w.name === name)!;
const token = published.bearer_tokens[0].token;

function request(headers: IncomingHttpHeaders): Request {
  return { method: 'GET', path: '/v2/deployments', params: {}, query: new URLSearchParams(), headers, body: undefined };
}

/** A handler that records each caller it ran for. */
function recording() {
  const callers: Caller[] = [];
  const handler = (_request: Request, caller: Caller): Reply => {
    callers.push(caller);
    return { body: { workspace: caller.workspace.name } };
  };
  return { callers, handler };
}

test('a request presents its API key, bearer token and tenant id, trimmed', () => {
  expect(presented({ 'x-api-key': '  k1 ', authorization: 'Bearer  tok', 'x-tenant-id': ' t1 ' })).toEqual({ apiKey: 'k1', bearer: 'tok', tenantId: 't1' });
  expect(presented({ authorization: 'bearer tok' }).bearer, 'the scheme name is case-insensitive').toBe('tok');
  expect(presented({ 'x-api-key': ['first', 'second'] }).apiKey, 'a repeated header counts once').toBe('first');
});

test('blank headers and other authorization schemes present nothing', () => {
  expect(presented({})).toEqual({ apiKey: undefined, bearer: undefined, tenantId: undefined });
  expect(presented({ 'x-api-key': '   ', 'x-tenant-id': '' })).toEqual({ apiKey: undefined, bearer: undefined, tenantId: undefined });
  for (const authorization of ['Basic dXNlcjpwdw==', 'Bearer', 'Bearer two words', 'tok']) {
    expect(presented({ authorization }).bearer, authorization).toBeUndefined();
  }
});

test('the wrapped handler runs with the workspace of the key, or the one x-tenant-id selects', async () => {
  // AUTH-CP-API-KEY, AUTH-CP-TENANT-ID
  const { callers, handler } = recording();
  const guarded = withAuth(directory, handler);
  expect(await guarded(request({ 'x-api-key': key('primary') }))).toEqual({ body: { workspace: 'apc-alpha' } });
  await guarded(request({ 'x-api-key': key('multi-workspace'), 'x-tenant-id': workspace('apc-beta').id }));
  expect(callers).toEqual([
    { workspace: workspace('apc-alpha'), scheme: 'api-key' },
    { workspace: workspace('apc-beta'), scheme: 'api-key' },
  ]);
});

test('missing or unknown credentials are refused with 401, a workspace out of reach with 403, and the handler never runs', () => {
  // AUTH-CP-MISSING-CREDENTIALS, AUTH-CP-WORKSPACE-ISOLATION
  const { callers, handler } = recording();
  const guarded = withAuth(directory, handler);
  expect(refusalOf(() => guarded(request({})))?.status).toBe(401);
  expect(refusalOf(() => guarded(request({ 'x-api-key': 'lsv2_sk_not_a_key' })))?.status).toBe(401);
  expect(refusalOf(() => guarded(request({ 'x-api-key': key('primary'), 'x-tenant-id': workspace('apc-beta').id })))?.status).toBe(403);
  expect(refusalOf(() => guarded(request({ 'x-api-key': key('org-scoped') })))?.status).toBe(403);
  expect(callers).toEqual([]);
});

test('a bearer token reaches only a handler that accepts bearer authentication', async () => {
  // AUTH-REPOS-SCHEMES, AUTH-CP-BEARER
  const { callers, handler } = recording();
  expect(refusalOf(() => withAuth(directory, handler)(request({ authorization: `Bearer ${token}` })))?.status).toBe(401);
  await withAuth(directory, handler, ['api-key', 'bearer'])(request({ authorization: `Bearer ${token}` }));
  expect(callers.map((c) => c.scheme)).toEqual(['bearer']);
});

test('a regional handler refuses a key whose account signed up in the other region', async () => {
  // REGION-HOME-KEY-ONLY
  const { callers, handler } = recording();
  expect(refusalOf(() => withAuth(directory, handler, ['api-key'], 'eu')(request({ 'x-api-key': key('primary') })))?.status).toBe(401);
  expect(refusalOf(() => withAuth(directory, handler, ['api-key'], 'us')(request({ 'x-api-key': key('eu-primary') })))?.status).toBe(401);
  await withAuth(directory, handler, ['api-key'], 'eu')(request({ 'x-api-key': key('eu-primary') }));
  expect(callers.map((c) => c.workspace.name)).toEqual(['apc-eu']);
});
