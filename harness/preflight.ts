// Before any test, every plane a target names is probed: reachable, answering as this API, and
// accepting the key. A target that is not ready stops the run with one line per plane (exit 2)
// instead of turning into hundreds of failures. Each probe creates nothing.
import { secret } from './environment.ts';
import { request } from 'undici';
import { planeOf, type Endpoint, type Plane } from '../specs/contract.ts';
import type { CredentialRole } from '../specs/types/simulator-admin.ts';
import { AdminClient } from './admin-client.ts';
import { isConnectError } from './connect-error.ts';
import { type Sent, sendPastFaults } from './retry.ts';
import type { Target } from './target.ts';

/** What a probe answered. */
interface Probed {
  status: number;
  contentType: string;
  text: string;
}

interface Problem {
  endpoint: Endpoint;
  url: string;
  problem: string;
}

const UNKNOWN_ID = '00000000-0000-4000-8000-00000000ff11';
const EU_HINT = 'the EU region knows only the accounts that signed up there: name an EU key under credentials.api_keys, role eu-primary';
const TIMEOUT_MS = 10_000;

/** One request per plane that creates nothing: a thread search (§4.5), an unknown deployment (§4.1), an unknown run. */
const PROBES: Record<Endpoint, { method: 'GET' | 'POST'; path: string; body?: unknown }> = {
  'agent-server': { method: 'POST', path: '/threads/search', body: { limit: 1 } },
  'control-plane': { method: 'GET', path: `/v2/deployments/${UNKNOWN_ID}` },
  'platform-api': { method: 'GET', path: `/runs/${UNKNOWN_ID}` },
  'platform-api-eu': { method: 'GET', path: `/runs/${UNKNOWN_ID}` },
};

/**
 * Whether an answer can come from this API. JSON always can. Without JSON, a page or a plain
 * "not found" (2xx, 404, 405, 501) means the URL names something else, and a gateway's 502-504
 * means nothing is serving behind it yet. A bare 500 lets the run go on: that is a target to judge.
 */
const NOT_THIS_API = new Set([404, 405, 501]);
const GATEWAY = new Set([502, 503, 504]);
const isThisApi = (status: number, json: unknown) =>
  json !== undefined || !((status >= 200 && status < 300) || NOT_THIS_API.has(status) || GATEWAY.has(status));

/**
 * The keys the suites will send, by role: the config's api_key_env (primary) and credentials, or
 * the keys a simulator publishes. The EU platform API gets an EU account's key (eu-primary) where
 * there is one, as the suites send it (§1: a region knows only the accounts that signed up there).
 */
async function apiKeysOf(target: Target): Promise<{ primary?: string; eu?: string; euEnv?: string }> {
  const euConfigured = target.credentials?.api_keys.find((c) => c.role === 'eu-primary')?.env;
  if (target.apiKeyEnv || target.credentials) {
    return { primary: target.apiKeyEnv && secret(target.apiKeyEnv), eu: euConfigured && secret(euConfigured), euEnv: euConfigured };
  }
  if (!target.capabilities.includes('workspace-credentials') || !target.adminUrl) return {};
  try {
    const info = await new AdminClient(target.adminUrl, { timeoutMs: TIMEOUT_MS }).getSimulatorInfo();
    const key = (role: CredentialRole) => (info.status === 200 ? info.json.credentials?.api_keys.find((k) => k.role === role)?.key : undefined);
    return { primary: key('primary'), eu: key('eu-primary') };
  } catch {
    return {};
  }
}

/** What stands in the way of a run of `planes` against `target`, one entry per endpoint (none when all is well). */
export async function preflight(target: Target, planes: readonly Plane[]): Promise<Problem[]> {
  const keys = await apiKeysOf(target);
  const named = (Object.entries(target.endpoints) as [Endpoint, string][]).filter(([endpoint]) => planes.includes(planeOf(endpoint)));
  const checks = named.map(async ([endpoint, url]) => {
    const eu = endpoint === 'platform-api-eu' && keys.eu !== undefined;
    const apiKey = eu ? keys.eu : keys.primary;
    const keyEnv = eu ? keys.euEnv : target.apiKeyEnv;
    const probe = PROBES[endpoint];
    const problem = (text: string): Problem => ({ endpoint, url, problem: text });
    let answer: Probed;
    try {
      // A transient fault (a reset, a gateway's 503 now and then) is sent past, as in the run.
      answer = await sendPastFaults('no-effect', `${probe.method} ${probe.path}`, async (): Promise<Sent<Probed>> => {
        try {
          const response = await request(`${url}${probe.path}`, {
            method: probe.method,
            headers: { accept: 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...(probe.body ? { 'content-type': 'application/json' } : {}) },
            body: probe.body ? JSON.stringify(probe.body) : undefined,
            headersTimeout: TIMEOUT_MS,
            bodyTimeout: TIMEOUT_MS,
          });
          const retryAfter = response.headers['retry-after'];
          const probed = { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text: await response.body.text() };
          return { met: { kind: 'answer', status: probed.status, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter }, answer: probed };
        } catch (error) {
          // No connection at all is no fault on the way: the target is not there.
          if (isConnectError(error as Error)) throw error;
          return { met: { kind: 'broken', message: describe(error) }, broke: error as Error };
        }
      });
    } catch (error) {
      return problem(`cannot be reached: ${describe(error)}`);
    }
    const { status, text, contentType } = answer;
    const said = `${probe.method} ${probe.path} answered ${status} ${text.slice(0, 120).replace(/\s+/g, ' ')}`;
    if (status === 401 || status === 403) {
      const hint = endpoint === 'platform-api-eu' && !eu ? ` (${EU_HINT})` : '';
      return problem(
        apiKey
          ? `refuses the API key ${keyEnv ? `in ${keyEnv}` : ''}${hint}: ${said}`
          : `asks for credentials, and the target names none (api_key_env): ${said}`,
      );
    }
    let json: unknown;
    try {
      json = /json/i.test(contentType) ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (isThisApi(status, json)) return undefined;
    return problem(GATEWAY.has(status) ? `is not serving (a gateway answered): ${said}` : `does not answer as the ${endpoint} of this API (no JSON): ${said}`);
  });
  return (await Promise.all(checks)).filter((p): p is Problem => p !== undefined);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${cause.code} ${cause.message ?? ''}`.trim() : (error as Error).message;
}
