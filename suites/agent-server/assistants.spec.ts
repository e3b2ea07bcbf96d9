// §2.10, §4.5: assistants and their default per graph.
import { expect, test } from '../fixtures.ts';
import { expectJsonError, expectSchema, expectStatus, precondition, preconditionArray } from '../checks/index.ts';
import type { ApiClient } from '../client.ts';

type Assistant = { assistant_id: string; graph_id?: string; config?: unknown } & Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function allAssistants(agent: ApiClient): Promise<Assistant[]> {
  const res = await agent.post<Assistant[]>('/assistants/search', { limit: 100, offset: 0 });
  return preconditionArray(res, 'search the assistants');
}

test('an assistant is identified by a UUID', { tag: '@ASSISTANT-ID-UUID' }, async ({ agent }) => {
  const res = await agent.post<Assistant[]>('/assistants/search', { limit: 10 });
  expectStatus(res, 200);
  for (const assistant of preconditionArray(res, 'search the assistants')) expect(assistant.assistant_id, res.describe('assistant_id')).toMatch(UUID);
});

test("a graph id selects that graph's default assistant", { tag: '@ASSISTANT-GRAPH-ID-DEFAULT' }, async ({ agent }) => {
  const byGraph = await agent.get<Assistant>('/assistants/agent');
  expectStatus(byGraph, 200);
  expect(byGraph.json.assistant_id, byGraph.describe('a UUID')).toMatch(UUID);
  const byId = await agent.get<Assistant>(`/assistants/${byGraph.json.assistant_id}`);
  expectStatus(byId, 200);
  expect(byId.json.graph_id, byId.describe('the same assistant, of graph agent')).toBe('agent');
  const thread = await agent.post<{ thread_id: string }>('/threads', {});
  precondition(thread, 'create a thread');
  const run = await agent.post<{ assistant_id: string }>(`/threads/${thread.json.thread_id}/runs`, { assistant_id: 'agent', input: {} });
  expectStatus(run, [200, 201]);
  expect(run.json.assistant_id, run.describe('a run by graph id uses the default assistant')).toBe(byGraph.json.assistant_id);
});

test("an assistant's config is null or an object", { tag: '@ASSISTANT-CONFIG' }, async ({ agent }) => {
  for (const assistant of await allAssistants(agent)) {
    expect(assistant.config === null || (typeof assistant.config === 'object' && !Array.isArray(assistant.config)), `config of ${assistant.assistant_id}: ${JSON.stringify(assistant.config)}`).toBe(true);
  }
});

test('which other fields an assistant has', { tag: '@ASSISTANT-OTHER-FIELDS' }, async ({ agent, observe }) => {
  const res = await agent.get<Assistant>('/assistants/agent');
  observe('ASSISTANT-OTHER-FIELDS', `fields: ${Object.keys(res.json ?? {}).sort().join(', ')}`);
});

test('an assistant has assistant_id, graph_id, config, created_at, updated_at and metadata', { tag: '@ASSISTANT-SHAPE' }, async ({ agent }) => {
  const res = await agent.get<Assistant>('/assistants/agent');
  expectStatus(res, 200);
  expectSchema(res, 'agent-server', 'Assistant');
  for (const field of ['assistant_id', 'graph_id', 'config', 'created_at', 'updated_at', 'metadata']) expect(res.json, res.describe(`has ${field}`)).toHaveProperty(field);
});

test('GET /assistants/{assistant_id} answers the assistant by UUID or graph id', { tag: '@ASSISTANT-GET' }, async ({ agent }) => {
  for (const assistant of await allAssistants(agent)) {
    const res = await agent.get<Assistant>(`/assistants/${assistant.assistant_id}`);
    expectStatus(res, 200);
    expect(res.json.assistant_id, res.describe('by UUID')).toBe(assistant.assistant_id);
  }
  expectStatus(await agent.get('/assistants/agent'), 200);
});

test('an unknown assistant answers 404 with a JSON error body', { tag: '@ASSISTANT-GET-UNKNOWN-404' }, async ({ agent }) => {
  expectJsonError(await agent.get('/assistants/00000000-0000-4000-8000-000000000000'), 404);
});

test('POST /assistants/search answers an array of assistants', { tag: '@ASSISTANT-SEARCH' }, async ({ agent }) => {
  const res = await agent.post<Assistant[]>('/assistants/search', {});
  expectStatus(res, 200);
  expect(Array.isArray(res.json), res.describe('an array')).toBe(true);
  expect(res.json.map((a) => a.graph_id), res.describe("holds the graph's default assistant")).toContain('agent');
});

test('limit caps the number of assistants answered', { tag: '@ASSISTANT-SEARCH-LIMIT' }, async ({ agent }) => {
  const all = await allAssistants(agent);
  for (const limit of [1, all.length, all.length + 1]) {
    const res = await agent.post<Assistant[]>('/assistants/search', { limit });
    expectStatus(res, 200);
    expect(res.json.length, res.describe(`limit ${limit} of ${all.length}`)).toBe(Math.min(limit, all.length));
  }
});

test('offset skips that many assistants', { tag: '@ASSISTANT-SEARCH-OFFSET' }, async ({ agent }) => {
  const all = await allAssistants(agent);
  for (const offset of [0, 1, all.length]) {
    const res = await agent.post<Assistant[]>('/assistants/search', { limit: 100, offset });
    expectStatus(res, 200);
    expect(res.json.map((a) => a.assistant_id), res.describe(`offset ${offset}`)).toEqual(all.slice(offset).map((a) => a.assistant_id));
  }
});

test('what assistants search answers', { tag: '@ASSISTANT-SEARCH-FORMAT' }, async ({ agent, observe }) => {
  const res = await agent.post('/assistants/search', { limit: 1 });
  observe('ASSISTANT-SEARCH-FORMAT', `status ${res.status}; headers ${Object.keys(res.headers).filter((h) => h.startsWith('x-')).join(', ') || 'none'}; ${Array.isArray(res.json) ? 'array' : typeof res.json}`);
});

test.describe('an invalid limit or offset answers 4xx with a JSON error body', { tag: '@ASSISTANT-SEARCH-INVALID' }, () => {
  for (const [name, body] of [['limit a string', { limit: 'ten' }], ['limit zero', { limit: 0 }], ['offset negative', { offset: -1 }], ['offset a string', { offset: 'x' }]] as const) {
    test(name, async ({ agent }) => {
      expectJsonError(await agent.post('/assistants/search', body));
    });
  }
});
