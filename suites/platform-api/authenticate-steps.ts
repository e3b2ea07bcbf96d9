// POST /v2/auth/authenticate (§2.4, §4.2; the control plane's, §9, takes the same body) for the
// suites. Which request fields are required is not shown (§4.2): a target may require any of §2.4's
// fields, so a body the harness chose may be refused for what it leaves out, and that 422 says
// nothing of the rule a test judges.
import { createHash } from 'node:crypto';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { AuthenticateResponse } from '../../specs/types/platform-api.ts';

export const AUTHENTICATE = '/v2/auth/authenticate';

/** Every request field of §2.4 with a value of its type (the booleans as illustrated, is_default as the service defaults it), for `user`. */
function everyField(user: string): Record<string, unknown> {
  const hex = createHash('sha256').update(`token:${user}`).digest('hex');
  return {
    provider: 'apc-provider',
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
export async function authenticate(platform: ApiClient, body: Record<string, unknown>): Promise<ApiResponse<AuthenticateResponse>> {
  const res = await platform.post<AuthenticateResponse>(AUTHENTICATE, body);
  const complete = { ...everyField(typeof body.user_id === 'string' ? body.user_id : 'apc-user'), ...body };
  if (res.status !== 422 || Object.keys(complete).length === Object.keys(body).length) return res;
  return platform.post<AuthenticateResponse>(AUTHENTICATE, complete);
}
