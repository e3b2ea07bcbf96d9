// Creating, updating and deleting assistants: paths the spec does not show (§4.5 only searches
// assistants), which the service serves and the official SDK calls (assistants.create, update,
// delete). A target that does not serve one declares it in not_shown_operations, and its test is skipped.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import type { Assistant } from '../../specs/types/agent-server.ts';
import { assistantBody, newAssistant } from './assistants-steps.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

test('POST /assistants answers a new assistant of the graph, which GET then answers', { tag: '@ASSISTANT-CREATE' }, async ({ agent, testKey }) => {
  const res = await agent.post<Assistant>('/assistants', assistantBody(agent, testKey));
  expectStatus(res, '2xx');
  expect(res.json.assistant_id, res.describe('identified by a UUID')).toMatch(UUID);
  expect(res.json.graph_id, res.describe('of the graph asked for')).toBe('agent');
  const byGraph = await agent.get<Assistant>('/assistants/agent');
  if (byGraph.status === 200) expect(res.json.assistant_id, res.describe("a new assistant, not the graph's default")).not.toBe(byGraph.json.assistant_id);
  const read = await agent.get<Assistant>(`/assistants/${res.json.assistant_id}`);
  expectStatus(read, 200);
  expect(read.json, read.describe('the assistant created')).toMatchObject({ assistant_id: res.json.assistant_id, graph_id: 'agent' });
});

test('PATCH /assistants/{assistant_id} answers the next version, with the fields given and the metadata merged', { tag: '@ASSISTANT-UPDATE' }, async ({
  agent,
  testKey,
}) => {
  const created = await newAssistant(agent, testKey, { kept: 'as created', changed: 'before' });
  const res = await agent.patch<Assistant>(`/assistants/${created.assistant_id}`, {
    name: `apc ${testKey} updated`,
    config: { configurable: { tone: 'brief' } },
    metadata: { changed: 'after' },
  });
  expectStatus(res, '2xx');
  expect(res.json, res.describe('the fields given')).toMatchObject({
    assistant_id: created.assistant_id,
    name: `apc ${testKey} updated`,
    config: { configurable: { tone: 'brief' } },
  });
  expect(res.json.metadata, res.describe('the metadata merged')).toMatchObject({ apc_test: testKey, kept: 'as created', changed: 'after' });
  expect(res.json.version, res.describe(`a new version, one above ${created.version}`)).toBe((created.version ?? Number.NaN) + 1);
});

test('DELETE /assistants/{assistant_id} deletes the assistant', { tag: '@ASSISTANT-DELETE' }, async ({ agent, testKey }) => {
  const created = await newAssistant(agent, testKey);
  // Found before, so that not found after says it was deleted.
  precondition(await agent.get(`/assistants/${created.assistant_id}`), 'read the assistant before its delete');
  expectStatus(await agent.delete(`/assistants/${created.assistant_id}`), '2xx');
  const read = await agent.get(`/assistants/${created.assistant_id}`);
  expect(read.status >= 400 && read.status < 500, read.describe('the deleted assistant is no longer found (4xx)')).toBe(true);
});
