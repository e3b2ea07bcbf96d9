// What a run leaves on its target: what its requests created (the operations say what they
// create, x-creates), and its cleanup once the tests are done, which deletes what the API lets
// it delete (threads with their runs, crons, assistants, deployments with their revisions) with the keys the
// run knows. Traces, experiments, datasets, feedback and OAuth flows have no delete operation:
// they stay, and the report says so.
import { contract, planeOf, type Endpoint, type SideEffect } from '../specs/contract.ts';
import { type ProxyFault, type Sent, sendPastFaults } from './retry.ts';
import type { ConformanceRun } from './conformance-run.ts';
import { endpointOfExchange, FAULT_HEADER, TEST_HEADER, type Exchange } from '../specs/evidence-protocol.ts';

export type Counts = Partial<Record<Endpoint, Record<string, number>>>;

export interface Leftovers {
  created: Counts;
  /** Deleted by the cleanup (what the tests deleted themselves is not counted here). */
  cleanedUp: Counts;
  /** Still on the target after the run. */
  left: Counts;
}

/** Recording id of the cleanup's own requests. */
const CLEANUP = 'cleanup';

/** What can be deleted: where its id is in the creation's answer, and where to send the DELETE. */
const DELETABLE: Partial<Record<SideEffect, { id: string; path: (id: string) => string; operation: string }>> = {
  thread: { id: 'thread_id', path: (id) => `/threads/${id}`, operation: 'deleteThread' },
  cron: { id: 'cron_id', path: (id) => `/runs/crons/${id}`, operation: 'deleteCron' },
  assistant: { id: 'assistant_id', path: (id) => `/assistants/${id}`, operation: 'deleteAssistant' },
  deployment: { id: 'id', path: (id) => `/v2/deployments/${id}`, operation: 'deleteDeployment' },
};

/** What goes with what: runs with their thread, revisions with their deployment. */
const PARENT: Partial<Record<SideEffect, RegExp>> = {
  run: /^\/threads\/([^/?]+)\/runs/,
  revision: /^\/v2\/deployments\/([^/?]+)/,
};

interface Created {
  endpoint: Endpoint;
  kind: SideEffect;
  /** The DELETE path of a deletable resource. */
  path?: string;
  /** The DELETE path of the resource it goes with; none for a stateless run (its thread is temporary). */
  parent?: string;
}

const endpointOf = (exchange: Exchange) => endpointOfExchange(exchange.id)!;
const succeeded = (exchange: Exchange) => exchange.response.status >= 200 && exchange.response.status < 300;

function count(counts: Counts, endpoint: Endpoint, kind: string): void {
  const of = (counts[endpoint] ??= {});
  of[kind] = (of[kind] ?? 0) + 1;
}

/** Everything the run's successful requests created, in order. */
function createdBy(exchanges: Exchange[]): Created[] {
  const created: Created[] = [];
  for (const exchange of exchanges) {
    const kind = succeeded(exchange) && exchange.operation ? contract().operation(exchange.plane, exchange.operation).document['x-creates'] : undefined;
    if (!kind) continue;
    const endpoint = endpointOf(exchange);
    const how = DELETABLE[kind];
    const id = how && idIn(exchange.response.body, how.id);
    const parentId = PARENT[kind]?.exec(exchange.request.url)?.[1];
    const parent = parentId === undefined ? undefined : kind === 'run' ? DELETABLE.thread!.path(parentId) : DELETABLE.deployment!.path(parentId);
    created.push({ endpoint, kind, path: id ? how!.path(id) : undefined, parent });
  }
  return created;
}

/**
 * Deletes what the run created and did not delete itself, trying each key the run knows in
 * turn (a resource of another workspace answers 404 to the wrong key); answers what the run
 * created, what the cleanup deleted and what is left.
 */
export async function cleanUp(conformanceRun: ConformanceRun, exchanges: Exchange[], apiKeys: string[], clean: boolean): Promise<Leftovers> {
  const created = createdBy(exchanges);
  const gone = new Set(exchanges.filter((e) => succeeded(e) && e.request.method === 'DELETE').map((e) => `${endpointOf(e)} ${e.request.url.split('?')[0]}`));
  const cleanedUp: Counts = {};
  const deletable = created.filter((c) => c.path && !gone.has(`${c.endpoint} ${c.path}`) && hasOperation(c));
  // A few at a time: a hosted service has rate limits.
  for (let i = 0; clean && i < deletable.length; i += 8) {
    await Promise.all(
      deletable.slice(i, i + 8).map(async (c) => {
        if (await deleteWithAnyKey(conformanceRun.proxies[c.endpoint], c.path!, apiKeys)) {
          gone.add(`${c.endpoint} ${c.path}`);
          count(cleanedUp, c.endpoint, c.kind);
        }
      }),
    );
  }
  const totals: Counts = {};
  const left: Counts = {};
  for (const c of created) {
    count(totals, c.endpoint, c.kind);
    const stays = c.path ? !gone.has(`${c.endpoint} ${c.path}`) : c.parent ? !gone.has(`${c.endpoint} ${c.parent}`) : c.kind !== 'run';
    if (stays) count(left, c.endpoint, c.kind);
  }
  return { created: sorted(totals), cleanedUp: sorted(cleanedUp), left: sorted(left) };
}

/** Counts with endpoints and kinds in name order, not in the order parallel workers happened to create them. */
function sorted(counts: Counts): Counts {
  const byName = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  return byName(Object.fromEntries(Object.entries(counts).map(([endpoint, kinds]) => [endpoint, byName(kinds)])));
}

function hasOperation(c: Created): boolean {
  const operation = DELETABLE[c.kind]!.operation;
  return contract().operations.some((o) => o.plane === planeOf(c.endpoint) && o.operationId === operation);
}

async function deleteWithAnyKey(proxy: string | undefined, path: string, apiKeys: string[]): Promise<boolean> {
  if (!proxy) return false;
  for (const apiKey of apiKeys.length > 0 ? apiKeys : [undefined]) {
    try {
      // A transient fault is sent past, as in the run: what the run made is then not left for one.
      const status = await sendPastFaults('idempotent', `DELETE ${path}`, async (): Promise<Sent<number>> => {
        try {
          const response = await fetch(`${proxy}${path}`, {
            method: 'DELETE',
            headers: { [TEST_HEADER]: CLEANUP, ...(apiKey ? { 'x-api-key': apiKey } : {}) },
            signal: AbortSignal.timeout(30_000),
          });
          await response.body?.cancel();
          const fault = response.headers.get(FAULT_HEADER) as ProxyFault | null;
          const retryAfter = response.headers.get('retry-after') ?? undefined;
          return { met: { kind: 'answer', status: response.status, retryAfter, ...(fault ? { fault } : {}) }, answer: response.status };
        } catch (error) {
          return { met: { kind: 'broken', message: (error as Error).message }, broke: error as Error };
        }
      });
      if (status >= 200 && status < 300) return true;
      if (status !== 404 && status !== 403) return false;
    } catch {
      return false;
    }
  }
  return false;
}

function idIn(body: string | undefined, field: string): string | undefined {
  try {
    const value = (JSON.parse(body ?? '') as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
