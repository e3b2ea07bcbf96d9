// POST /v2/auth/authenticate (spec §2.4, §4.2): the first call for a user, provider and set
// of scopes starts an OAuth flow and answers the `url` to visit; once the user has been
// there (in the simulator: the url is on its admin path, and visiting it completes the flow)
// the same call answers the `token`. `force_new` starts a new flow. The status values and
// which fields are required follow the real service (Agent Auth API reference, docs.langchain.com/api-reference/auth-service-v2/authenticate). Plain state.
import { contract } from '../../specs/contract.ts';
import type { AuthenticateRequest, AuthenticateResponse } from '../../specs/types/platform-api.ts';
import { notFound, unprocessable, type ValidationIssue } from '../http/errors.ts';
import type { IdGenerator } from '../ids.ts';

export interface Flow {
  authId: string;
  key: string;
  url: string;
  userId: string | null;
  token?: string;
}

/** Where a flow's url points: the admin protocol's authorizeOAuthFlow. */
const AUTHORIZE_PATH = contract()
  .operationsOf('simulator-admin')
  .find((op) => op.operationId === 'authorizeOAuthFlow')!.path;

export class OAuthFlows {
  /** By auth_id. */
  private readonly flows = new Map<string, Flow>();
  /** The flow whose answer a caller gets now, by caller and request. */
  private readonly current = new Map<string, string>();

  constructor(private readonly env: { ids: IdGenerator }) {}

  /** `origin` is the address the caller reached, to build a url it can visit. */
  authenticate(workspaceId: string, body: AuthenticateRequest, origin: string): AuthenticateResponse {
    // provider and scopes required, as the real service (AUTHN-REQUIRED-FIELDS, AUTHN-REQUIRED-PROVIDER-SCOPES): 422 (ERROR-422-AUTHN).
    const issues: ValidationIssue[] = [];
    if (body.provider === undefined) issues.push({ loc: ['body', 'provider'], msg: 'Field required: provider names the OAuth provider', type: 'missing' });
    if (body.scopes === undefined) issues.push({ loc: ['body', 'scopes'], msg: 'Field required: scopes lists the requested scopes', type: 'missing' });
    if (issues.length > 0) throw unprocessable(`Invalid request: ${issues.map((i) => i.msg).join('; ')}`, issues);

    const userId = body.user_id ?? body.ls_user_id ?? null;
    const key = JSON.stringify([
      workspaceId,
      body.provider,
      userId,
      body.agent_id ?? null,
      [...new Set(body.scopes)].sort(),
      body.use_agent_builder_public_oauth ?? false,
    ]);
    const known = this.flows.get(this.current.get(key) ?? '');
    // The same call answers the flow's token once completed (AUTHN-FLOW-COMPLETES); force_new starts another (AUTHN-FORCE-NEW).
    if (known && !body.force_new) return result(known);
    const authId = this.env.ids.uuid();
    const url = `${origin}${AUTHORIZE_PATH}?auth_id=${authId}&provider=${encodeURIComponent(body.provider!)}`;
    const flow: Flow = { authId, key, url, userId };
    this.flows.set(authId, flow);
    this.current.set(key, authId);
    return result(flow);
  }

  has(authId: string): boolean {
    return this.flows.has(authId.toLowerCase());
  }

  /** The user granted access: the flow's token exists from now on. */
  complete(authId: string): AuthenticateResponse {
    const flow = this.flows.get(authId.toLowerCase());
    if (!flow) throw notFound(`No OAuth flow ${authId}`);
    flow.token ??= `apcsim-oauth-${this.env.ids.uuid()}`;
    return result(flow);
  }

  clear(): void {
    this.flows.clear();
    this.current.clear();
  }

  snapshot(): { flows: Flow[]; current: [string, string][] } {
    return structuredClone({ flows: [...this.flows.values()], current: [...this.current] });
  }

  restore(snapshot: { flows: Flow[]; current: [string, string][] }): void {
    const flows = snapshot.flows.map((f): [string, Flow] => [f.authId, structuredClone(f)]);
    const current = [...snapshot.current];
    this.clear();
    for (const [id, flow] of flows) this.flows.set(id, flow);
    for (const [key, id] of current) this.current.set(key, id);
  }
}

/** A token once the flow completed, else its url and auth_id (AUTHN-TOKEN-OR-URL, AUTHN-RESULT-CONDITIONS). */
function result(flow: Flow): AuthenticateResponse {
  return flow.token
    ? { status: 'completed', url: null, auth_id: flow.authId, token: flow.token, user_id: flow.userId }
    : { status: 'pending', url: flow.url, auth_id: flow.authId, token: null, user_id: flow.userId };
}
