// POST /v2/auth/authenticate (§2.4, §4.2; the control plane's, §9, takes the same body) for the
// suites. Which request fields are required is not shown (§4.2): a target may require any of §2.4's
// fields, so a body the harness chose may be refused for what it leaves out, and that 422 says
// nothing of the rule a test judges. Nor does the spec say which providers exist (§2.4: "OAuth
// provider identifier"): the target config names those it knows, and a refusal of an id the
// harness made up says nothing either.
import { createHash } from 'node:crypto';
import { skipDeclared, skipForMachine } from '../../harness/checks/attribution.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Target } from '../../harness/target.ts';
import type { AuthenticateResponse } from '../../specs/types/platform-api.ts';

export const AUTHENTICATE = '/v2/auth/authenticate';

/** Provider ids the suites make up for a target whose config names none (oauth_providers). */
const MADE_UP = ['apc-provider', 'apc-other-provider'];

/** The OAuth providers the authenticate bodies of a run name: the target config's oauth_providers, else made-up ids. */
export class OAuthProviders {
  private readonly ids: string[];

  constructor(private readonly target: Pick<Target, 'name' | 'oauthProviders'>) {
    this.ids = target.oauthProviders ?? MADE_UP;
  }

  /** The provider the bodies name. */
  get first(): string {
    return this.ids[0];
  }

  /** Another provider, for a test of two: a config that names only one skips that test, declared. */
  second(): string {
    skipDeclared(this.ids.length < 2, `target '${this.target.name}' names one OAuth provider (oauth_providers): the test needs two`);
    return this.ids[1];
  }

  /** Whether `res` refused a provider the suites made up: an id the target need not know, so the answer says nothing of the endpoint. */
  refusedMadeUp(res: ApiResponse, provider: unknown): boolean {
    return this.target.oauthProviders === undefined && MADE_UP.includes(provider as string) && res.status >= 400 && res.status < 500;
  }

  /**
   * Skips the test when `res` refused a provider the suites made up: a rule that needs an accepted body
   * cannot be judged without an id the target knows, which only its config can give. Neither a failure
   * nor a declaration: what the target holds let this run make no check (exit 2), and the reason names the key.
   */
  skipIfRefusedMadeUp(res: ApiResponse, provider: unknown): void {
    skipForMachine(
      this.refusedMadeUp(res, provider),
      `target '${this.target.name}' refused the OAuth provider '${provider}', an id this run made up (which providers exist is the target's, §2.4): name the providers it knows in the target config (oauth_providers) to judge this rule: ${res.describe()}`,
    );
  }
}

/** Every request field of §2.4 but provider (the body's own) with a value of its type (the booleans as illustrated, is_default as the service defaults it), for `user`. */
function everyField(user: string): Record<string, unknown> {
  const hex = createHash('sha256').update(`token:${user}`).digest('hex');
  return {
    scopes: ['read'],
    user_id: user,
    ls_user_id: `ls-${user}`,
    agent_id: 'apc-agent',
    use_agent_builder_public_oauth: false,
    force_new: false,
    token_id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
    is_default: true,
  };
}

/**
 * Sends an authenticate body the test chose. Where the target answers it 422 and it lacks a field of
 * §2.4, it is sent again with every field of §2.4 (its own values kept), and that answer is the one the
 * test judges: the 422 may only say the target requires what the body left out (§4.2). A test of what
 * the target refuses (a field missing or of the wrong type) sends its body as it is (`platform.post`).
 */
export async function withEveryField(platform: ApiClient, body: Record<string, unknown>): Promise<ApiResponse<AuthenticateResponse>> {
  const res = await platform.post<AuthenticateResponse>(AUTHENTICATE, body);
  const complete = { ...everyField(typeof body.user_id === 'string' ? body.user_id : 'apc-user'), ...body };
  if (res.status !== 422 || Object.keys(complete).length === Object.keys(body).length) return res;
  return platform.post<AuthenticateResponse>(AUTHENTICATE, complete);
}

/** Sends a body the target should accept (withEveryField); a refusal of a provider the suites made up skips the test (OAuthProviders). */
export async function authenticate(platform: ApiClient, body: Record<string, unknown>, providers: OAuthProviders): Promise<ApiResponse<AuthenticateResponse>> {
  const res = await withEveryField(platform, body);
  providers.skipIfRefusedMadeUp(res, body.provider);
  return res;
}
