// What a run leaves on its target: what its requests created (the operations say what they
// create, x-creates), and its cleanup once the tests are done, which deletes what the API lets
// it delete (threads with their runs, crons, deployments) with the target's API key. Traces,
// experiments and datasets have no delete operation: they stay, and the report says so.
import { contract, planeOf, type Endpoint, type SideEffect } from '../specs/contract.ts';
import type { Exchange } from './proxy/recording-proxy.ts';
import { TEST_HEADER } from './proxy/recording-proxy.ts';
import type { RunContext } from './run-context.ts';

export type Counts = Partial<Record<Endpoint, Record<string, number>>>;

/** Recording id of the cleanup's own requests. */
export const CLEANUP = 'cleanup';

/** How to delete what an operation creates: where its id is in the answer, and the request. */
const DELETABLE: Partial<Record<SideEffect, { id: string; path: (id: string) => string; deleteOperation: string }>> = {
  thread: { id: 'thread_id', path: (id) => `/threads/${id}`, deleteOperation: 'deleteThread' },
  cron: { id: 'cron_id', path: (id) => `/runs/crons/${id}`, deleteOperation: 'deleteCron' },
  deployment: { id: 'id', path: (id) => `/v2/deployments/${id}`, deleteOperation: 'deleteDeployment' },
};

const endpointOf = (exchange: Exchange) => exchange.id.slice(0, exchange.id.lastIndexOf('-')) as Endpoint;
const succeeded = (exchange: Exchange) => exchange.response.status >= 200 && exchange.response.status < 300;
const effectOf = (exchange: Exchange) => (exchange.operation ? contract().operation(exchange.plane, exchange.operation).document['x-creates'] : undefined);

function count(counts: Counts, endpoint: Endpoint, kind: string): void {
  const of = (counts[endpoint] ??= {});
  of[kind] = (of[kind] ?? 0) + 1;
}

/** What the run's successful requests created, per endpoint and kind. */
export function createdBy(exchanges: Exchange[]): Counts {
  const created: Counts = {};
  for (const exchange of exchanges) {
    const kind = succeeded(exchange) ? effectOf(exchange) : undefined;
    if (kind) count(created, endpointOf(exchange), kind);
  }
  return created;
}

/** Deletes what the run created and did not delete itself; answers what was deleted. */
export async function cleanUp(run: RunContext, exchanges: Exchange[], apiKey: string | undefined): Promise<Counts> {
  const deleted = new Set(exchanges.filter((e) => succeeded(e) && /^DELETE$/i.test(e.request.method)).map((e) => `${endpointOf(e)} ${e.request.url.split('?')[0]}`));
  const left: { endpoint: Endpoint; kind: string; path: string }[] = [];
  for (const exchange of exchanges) {
    const kind = succeeded(exchange) ? effectOf(exchange) : undefined;
    const how = kind && DELETABLE[kind];
    if (!how) continue;
    const id = idIn(exchange.response.body, how.id);
    const endpoint = endpointOf(exchange);
    if (id && !deleted.has(`${endpoint} ${how.path(id)}`) && contract().operations.some((o) => o.plane === planeOf(endpoint) && o.operationId === how.deleteOperation)) {
      deleted.add(`${endpoint} ${how.path(id)}`);
      left.push({ endpoint, kind: kind!, path: how.path(id) });
    }
  }
  const cleaned: Counts = {};
  // A few at a time: a hosted service has rate limits.
  for (let i = 0; i < left.length; i += 8) {
    await Promise.all(
      left.slice(i, i + 8).map(async ({ endpoint, kind, path }) => {
        const proxy = run.proxies[endpoint];
        if (!proxy) return;
        const headers: Record<string, string> = { [TEST_HEADER]: CLEANUP, ...(apiKey ? { 'x-api-key': apiKey } : {}) };
        try {
          const response = await fetch(`${proxy}${path}`, { method: 'DELETE', headers, signal: AbortSignal.timeout(30_000) });
          if (response.ok) count(cleaned, endpoint, kind);
        } catch {
          // Left behind: the report shows created and cleaned up side by side.
        }
      }),
    );
  }
  return cleaned;
}

function idIn(body: string | undefined, field: string): string | undefined {
  try {
    const value = (JSON.parse(body ?? '') as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
