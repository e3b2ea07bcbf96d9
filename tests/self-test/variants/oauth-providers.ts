// Conformant variants of the OAuth providers an authenticate body names: §2.4 gives `provider` as an
// "OAuth provider identifier" and leaves which exist to the target (the service creates them
// beforehand), so a target may refuse every id it does not know.
import type { MutableRequest } from '../broken-target.ts';
import { calls, isRecord, jsonError } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

/** The one provider the variants know: a test of two providers is skipped, declared, where the config names it. */
const KNOWN = ['apc-known-provider'];

/**
 * A target whose authenticate endpoint knows only its own providers and refuses any other id with
 * `status`. Declared, its config names them (oauth_providers) and the AUTHN rules are judged as strictly
 * as on the simulator; undeclared, the suites' made-up ids are refused and those rules are left unjudged
 * (a machine skip whose reason names the key), never failed.
 */
function knownProvidersOnly(endpoint: 'platform-api' | 'control-plane', status: 400 | 404, declared: boolean): Variant {
  return {
    endpoint,
    description: `the ${endpoint}'s authenticate knows only the provider ${KNOWN[0]} and answers ${status} to any other${declared ? '; its config names it' : '; its config names none'}`,
    allowedBy: '§2.4: provider is an "OAuth provider identifier", which ones exist is not shown; §7: "Status codes for ... unknown ids ...: not shown"',
    request: (req: MutableRequest) =>
      calls(req, 'authenticate') && isRecord(req.body) && typeof req.body.provider === 'string' && !KNOWN.includes(req.body.provider)
        ? jsonError(status, `OAuth provider '${req.body.provider}' not found`)
        : req,
    // Undeclared: the key the broken targets' config names otherwise (as the embedded simulator's) left out.
    declares: { oauth_providers: declared ? KNOWN : undefined },
    ...(declared && {
      passes:
        endpoint === 'platform-api'
          ? ['AUTHN-ENDPOINT', 'AUTHN-REQ-PROVIDER', 'AUTHN-REQ-SCOPES', 'AUTHN-TOKEN-OR-URL', 'AUTHN-FLOW-COMPLETES', 'ERROR-422-AUTHN']
          : ['AUTHN-CONTROL-PLANE', 'VERSION-CP-AUTHN-V2'],
    }),
  };
}

export const OAUTH_PROVIDER_VARIANTS: Record<string, Variant> = {
  'platform-api-known-providers-only-declared': knownProvidersOnly('platform-api', 400, true),
  'platform-api-known-providers-only-undeclared': knownProvidersOnly('platform-api', 400, false),
  'control-plane-known-providers-only-declared': knownProvidersOnly('control-plane', 404, true),
  'control-plane-known-providers-only-undeclared': knownProvidersOnly('control-plane', 404, false),
};
