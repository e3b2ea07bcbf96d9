// A run's recorded requests sent again, one at a time and in recorded order, to a fresh simulator
// with no harness around them: the run's floor. What it leaves out, by necessity: the admin path
// calls (/__sim: clock, resets, faults), which the proxies never see; webhook deliveries, which
// go from the target to the receiver; and requests to a base the fresh simulator does not have.
import { Agent, request } from 'undici';
import type { Endpoint } from '../specs/contract.ts';
import type { SimulatorInfo } from '../specs/types/simulator-admin.ts';
import { endpointOfExchange } from '../specs/evidence-protocol.ts';

/** The parts of a HAR entry (harness/proxy/har.ts) that a replay reads. */
export interface HarEntry {
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
  response: { status: number };
  /** `<endpoint>-…`: the proxy's name (one per endpoint, harness/global-setup.ts) first (endpointOfExchange). */
  _id: string;
  _delivery?: true;
}

interface ReplayRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The status the run got, to say how close the replay came to it. */
  recordedStatus: number;
}

interface ReplayScript {
  requests: ReplayRequest[];
  /** Webhook deliveries: the target's requests to the receiver, not the suites'. */
  deliveries: number;
  /** Requests to a base the fresh simulator has no counterpart for (a deployment's URL). */
  elsewhere: number;
}

/** Set by the client per connection and body, so never copied from the recording. */
const TRANSPORT_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const REDACTED = 'REDACTED';

/**
 * The suites' requests of a HAR log, aimed at `sim`'s planes. The recording redacts credentials,
 * so a redacted API key becomes a key of the plane's region that opens the workspace the request
 * names (x-tenant-id), else the region's primary; a redacted bearer token becomes the simulator's.
 * A test that sent a wrong key on purpose is then answered otherwise: the replay counts those.
 */
export function replayScript(entries: HarEntry[], sim: Pick<SimulatorInfo, 'planes' | 'credentials'>): ReplayScript {
  const script: ReplayScript = { requests: [], deliveries: 0, elsewhere: 0 };
  for (const entry of entries) {
    if (entry._delivery) {
      script.deliveries++;
      continue;
    }
    const endpoint = endpointOfExchange(entry._id);
    const base = endpoint && sim.planes[endpoint];
    if (endpoint === undefined || base === undefined) {
      script.elsewhere++;
      continue;
    }
    const url = new URL(entry.request.url);
    const headers: Record<string, string> = {};
    for (const { name, value } of entry.request.headers) {
      const lower = name.toLowerCase();
      if (!TRANSPORT_HEADERS.has(lower)) headers[lower] = value;
    }
    if (headers['x-api-key'] === REDACTED) headers['x-api-key'] = apiKeyFor(endpoint, headers['x-tenant-id'], sim.credentials);
    if (headers.authorization?.includes(REDACTED)) headers.authorization = `Bearer ${sim.credentials.bearer_tokens[0].token}`;
    script.requests.push({
      method: entry.request.method,
      url: `${base}${url.pathname}${url.search}`,
      headers,
      body: entry.request.postData?.text,
      recordedStatus: entry.response.status,
    });
  }
  return script;
}

function apiKeyFor(endpoint: Endpoint, tenant: string | undefined, credentials: SimulatorInfo['credentials']): string {
  const region = endpoint === 'platform-api-eu' ? 'eu' : 'us';
  const keys = credentials.api_keys.filter((k) => k.region === region);
  const opening = tenant === undefined ? undefined : keys.find((k) => k.workspaces.includes(tenant));
  return (opening ?? keys.find((k) => k.default_workspace !== null) ?? keys[0]).key;
}

export interface ReplayResult {
  /** The time the answered requests took, one after the other. */
  seconds: number;
  /**
   * Answers whose status is the recorded one. Not all: the recorded requests name their tests'
   * partitions, so the ids match, but the run's admin calls (clock advances, rate-limit resets)
   * are not replayed, so a run stays pending and the §8 windows fill (429): cheaper answers, so
   * the floor is a low one.
   */
  sameStatus: number;
  /** Requests that got no whole answer within the timeout (a join waiting on a clock no one moves); not in `seconds`. */
  timedOut: number;
}

/** Far above any answer the simulator gives at once; a request still waiting waits on a clock that never moves. */
const REQUEST_TIMEOUT_MS = 1_000;

/** Sends a script's requests one after the other, each answer read to its end, over keep-alive connections. */
export async function replay(requests: ReplayRequest[]): Promise<ReplayResult> {
  const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: 1 });
  const result: ReplayResult = { seconds: 0, sameStatus: 0, timedOut: 0 };
  try {
    for (const r of requests) {
      const started = performance.now();
      try {
        const answer = await request(r.url, {
          method: r.method as 'GET',
          headers: r.headers,
          body: r.body,
          dispatcher,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await answer.body.arrayBuffer();
        result.seconds += (performance.now() - started) / 1000;
        if (answer.statusCode === r.recordedStatus) result.sameStatus++;
      } catch (error) {
        if ((error as Error).name !== 'TimeoutError' && (error as Error).name !== 'AbortError') throw error;
        result.timedOut++;
      }
    }
  } finally {
    await dispatcher.close();
  }
  return result;
}
