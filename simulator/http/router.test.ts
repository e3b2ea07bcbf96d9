// Route tables are keyed by operationId: method and path come from the contract, and a table
// that misses or invents an operation is refused before the server starts.
import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import type { operations } from '../../specs/types/agent-server.ts';
import { compileTable, type Route, RouteIndex, type RouteTable } from './router.ts';

const answer = () => ({ body: {} });
const table = () =>
  Object.fromEntries(
    contract()
      .operationsOf('agent-server')
      .map((op) => [op.operationId, answer]),
  ) as unknown as RouteTable<operations>;

test('a table with one handler per operation binds each to its documented method and path', () => {
  const routes = compileTable<operations>('agent-server', table());
  const found = new RouteIndex(routes).match('GET', '/threads/t-1/runs/r-1');
  expect(found.kind === 'found' && found.route.operation.operationId).toBe('getRun');
  expect(found.kind === 'found' && found.params).toEqual({ thread_id: 't-1', run_id: 'r-1' });
});

test('a literal segment wins over a parameter: /threads/search is not a thread id', () => {
  const found = new RouteIndex(compileTable<operations>('agent-server', table())).match('POST', '/threads/search');
  expect(found.kind === 'found' && found.route.operation.operationId).toBe('searchThreads');
});

test('a known path with another method is told apart from an unknown path', () => {
  const routes = new RouteIndex(compileTable<operations>('agent-server', table()));
  expect(routes.match('PUT', '/threads/t-1')).toEqual({ kind: 'method-not-allowed', allow: expect.arrayContaining(['GET', 'DELETE']) });
  expect(routes.match('GET', '/nowhere')).toEqual({ kind: 'not-found' });
});

test('a table missing an operation, or naming one the document lacks, is refused', () => {
  const { getThread: _, ...missing } = table();
  expect(() => compileTable('agent-server', missing as RouteTable<operations>)).toThrow(/no handler for \[getThread\]/);
  expect(() => compileTable('agent-server', { ...table(), getThreads: answer } as RouteTable<operations>)).toThrow(/no operation for \[getThreads\]/);
});

test("the platform API's x-base-paths serve a route bare and under /api/v1, and authenticate bare only", () => {
  const served = (id: string) =>
    contract()
      .operation('platform-api', id)
      .served.map((s) => s.path);
  expect(served('createDataset')).toEqual(['/datasets', '/api/v1/datasets']);
  expect(served('createRun')).toEqual(['/runs', '/api/v1/runs']);
  expect(served('authenticate')).toEqual(['/v2/auth/authenticate']);
});

test('malformed percent-encoding in a path parameter reaches validation as sent, not as a crash', () => {
  const found = new RouteIndex(compileTable<operations>('agent-server', table())).match('GET', '/threads/%E0%A4%A');
  expect(found.kind === 'found' && found.params.thread_id).toBe('%E0%A4%A');
});

test('a route whose first segment is a parameter matches under any first segment, after the literal routes of its length', () => {
  const [getThread, deleteThread] = ['getThread', 'deleteThread'].map((id) => contract().operation('agent-server', id));
  const route = (operation: typeof getThread, path: string): Route => {
    const segments = path.split('/').slice(1);
    return {
      operation,
      served: {
        path,
        segments: segments.map((s) => (s.startsWith('{') ? null : s)),
        paramNames: segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1)),
        specificity: segments.filter((s) => !s.startsWith('{')).length,
      },
      body: 'json',
      handler: answer,
    };
  };
  const routes = new RouteIndex([route(getThread, '/{scope}/items'), route(deleteThread, '/threads/items')]);
  const literal = routes.match('DELETE', '/threads/items');
  expect(literal.kind === 'found' && literal.route.served.path).toBe('/threads/items');
  const param = routes.match('GET', '/anything/items');
  expect(param.kind === 'found' && param.params).toEqual({ scope: 'anything' });
  expect(routes.match('GET', '/threads/items')).toMatchObject({ kind: 'found', params: { scope: 'threads' } });
  expect(routes.match('PUT', '/threads/items')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'GET'] });
  expect(routes.match('PUT', '/other/items')).toEqual({ kind: 'method-not-allowed', allow: ['GET'] });
});
