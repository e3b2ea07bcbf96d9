// The one client of the simulator's admin protocol, the reserved path /__sim
// (specs/openapi/simulator-admin.yaml): a method per operation, named by its operationId, whose
// method and path come from the contract (contract().adminOperation) and whose answers are the
// generated types (specs/types/simulator-admin.ts). The harness and the suites reach the admin
// path through it alone, as they would any target's: tests/layout.test.ts fails on another way.
import { type AdminAnswer, type AdminOperationId, contract } from '../specs/contract.ts';
import type { ClockAdvance, Fault, operations, RequestBatch, Reset, Snapshot } from '../specs/types/simulator-admin.ts';
import { ApiClient, type ApiResponse } from './client.ts';

type RequestBody<Id extends AdminOperationId> = NonNullable<operations[Id]['requestBody']>['content']['application/json'];

interface AdminClientOptions {
  /** Attributes the requests to a test (or a step tests share), as the suites' other clients do. */
  testId?: string;
  /** Gives up on each request after this many ms (default: waits as long as it takes). */
  timeoutMs?: number;
  /** The partition the requests act on (capability partitions; default the simulator's own platform). */
  partition?: string;
}

export class AdminClient {
  private readonly client: ApiClient;

  constructor(
    /** The base URL the target serves its admin path under (Target.adminUrl). */
    readonly baseUrl: string,
    private readonly options: AdminClientOptions = {},
  ) {
    this.client = new ApiClient(baseUrl, { testId: options.testId, partition: options.partition });
  }

  /** The simulator's seed, time, clock, plane URLs, capabilities, credentials and deployment configuration. */
  getSimulatorInfo(): Promise<ApiResponse<AdminAnswer<'getSimulatorInfo'>>> {
    return this.call('getSimulatorInfo');
  }

  /** The simulated time. */
  getClock(): Promise<ApiResponse<AdminAnswer<'getClock'>>> {
    return this.call('getClock');
  }

  /** Moves a virtual clock forward (capability virtual-clock). */
  advanceClock(body: ClockAdvance): Promise<ApiResponse<AdminAnswer<'advanceClock'>>> {
    return this.call('advanceClock', { body });
  }

  /** Forgets all state; the same seed gives the same ids again (capability reset). */
  resetSimulator(body?: Reset): Promise<ApiResponse<AdminAnswer<'resetSimulator'>>> {
    return this.call('resetSimulator', { body });
  }

  /** Empties the rate-limit counters of every plane (capability rate-limit-reset). */
  resetRateLimits(): Promise<ApiResponse<AdminAnswer<'resetRateLimits'>>> {
    return this.call('resetRateLimits');
  }

  /** How many webhook deliveries are on the wire or waiting for their next attempt (capability webhook-activity). */
  getWebhookActivity(): Promise<ApiResponse<AdminAnswer<'getWebhookActivity'>>> {
    return this.call('getWebhookActivity');
  }

  /** The whole state as JSON (capability snapshots); 409 while runs or webhook deliveries are under way. */
  getSnapshot(): Promise<ApiResponse<AdminAnswer<'getSnapshot'>>> {
    return this.call('getSnapshot');
  }

  /** Replaces the whole state with a snapshot (capability snapshots); 422 for one it cannot load. */
  restoreSnapshot(body: Snapshot): Promise<ApiResponse<AdminAnswer<'restoreSnapshot'>>> {
    return this.call('restoreSnapshot', { body });
  }

  /** The faults in force, with what each has left (capability fault-injection). */
  listFaults(): Promise<ApiResponse<AdminAnswer<'listFaults'>>> {
    return this.call('listFaults');
  }

  /** Makes the requests a fault matches fail on purpose, to watch a client retry (capability fault-injection). */
  setFault(body: Fault): Promise<ApiResponse<AdminAnswer<'setFault'>>> {
    return this.call('setFault', { body });
  }

  /**
   * Has the plane make `count` requests in turn, in process, and answers what each answered (capability bulk-requests);
   * 409 while a fault is in force. Its requests are counted by rate limits, so it is sent again only where it cannot have landed.
   */
  sendRequests(body: RequestBatch): Promise<ApiResponse<AdminAnswer<'sendRequests'>>> {
    return this.call('sendRequests', { body, kind: 'counted' });
  }

  /** Clears every fault (capability fault-injection). */
  clearFaults(): Promise<ApiResponse<AdminAnswer<'clearFaults'>>> {
    return this.call('clearFaults');
  }

  /** Makes a revision that is not yet terminal fail (capability revision-faults). */
  failRevision(deploymentId: string, revisionId: string, body?: RequestBody<'failRevision'>): Promise<ApiResponse<AdminAnswer<'failRevision'>>> {
    return this.call('failRevision', { params: { deployment_id: deploymentId, revision_id: revisionId }, body });
  }

  /** Completes an OAuth flow, as the user granting access at the provider would (capability oauth-completion). */
  authorizeOAuthFlow(authId: string): Promise<ApiResponse<AdminAnswer<'authorizeOAuthFlow'>>> {
    return this.call('authorizeOAuthFlow', { query: { auth_id: authId } });
  }

  private call<Id extends AdminOperationId>(
    operationId: Id,
    { params = {}, query, body, kind }: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown; kind?: 'counted' } = {},
  ): Promise<ApiResponse<AdminAnswer<Id>>> {
    const operation = contract().adminOperation(operationId);
    const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      if (params[name] === undefined) throw new Error(`${operationId} needs the path parameter ${name}`);
      return encodeURIComponent(params[name]);
    });
    const search = query ? `?${new URLSearchParams(query).toString()}` : '';
    const signal = this.options.timeoutMs === undefined ? undefined : AbortSignal.timeout(this.options.timeoutMs);
    return this.client.request<AdminAnswer<Id>>(operation.method, `${path}${search}`, { body, signal, kind });
  }
}

/** The body of an admin answer; throws, naming the exchange, when the simulator did not answer 200. */
export function answered<T>(res: ApiResponse<T>, what: string): T {
  if (res.status !== 200) throw new Error(res.describe(`${what} failed`));
  return res.json;
}
