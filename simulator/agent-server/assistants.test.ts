// The assistant store alone, without HTTP: the default assistant of each built-in graph, found by
// its UUID or its graph id, the configured assistants beside it, search with its filters and paging,
// and the refusals of get and of a run.
import { expect, test } from '@playwright/test';
import { refusalOf } from '../http/errors.ts';
import { AssistantStore, uuid5 } from './assistants.ts';
import { GRAPHS } from './graphs.ts';

// The default assistant of graph 'agent' on the reference server (LangGraph's uuid5 of the graph id).
const AGENT_ASSISTANT = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';

function store(at = '2026-01-01T00:00:00.000Z') {
  let now = at;
  return { assistants: new AssistantStore(() => now), setNow: (t: string) => (now = t) };
}

test('uuid5 is the RFC 4122 name-based UUID', () => {
  // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
  expect(uuid5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  expect(uuid5('agent', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).not.toBe(uuid5('agents', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'));
});

test('each built-in graph has one default assistant, with the id the reference server gives it', () => {
  // ASSISTANT-ID-UUID, ASSISTANT-SHAPE, ASSISTANT-CONFIG
  const { assistants } = store('2026-01-01T00:05:00.000Z');
  const defaults = assistants.search({ limit: 100, metadata: { created_by: 'system' } });
  expect(defaults.map((a) => a.graph_id)).toEqual(GRAPHS.map((g) => g.graphId));
  expect(defaults.find((a) => a.graph_id === 'agent')).toEqual({
    assistant_id: AGENT_ASSISTANT,
    graph_id: 'agent',
    name: 'agent',
    description: null,
    config: {},
    context: {},
    metadata: { created_by: 'system' },
    version: 1,
    created_at: '2026-01-01T00:05:00.000Z',
    updated_at: '2026-01-01T00:05:00.000Z',
  });
});

test('configured assistants of the built-in graph follow the defaults, with the same name-based ids in every store', () => {
  // ASSISTANT-ID-UUID, ASSISTANT-CONFIG, ASSISTANT-SEARCH-LIMIT (several assistants to cap)
  const all = store().assistants.search({ limit: 100 });
  expect(all[0].assistant_id, 'the default first').toBe(AGENT_ASSISTANT);
  const configured = all.slice(GRAPHS.length);
  expect(configured.map((a) => [a.graph_id, a.name, a.config])).toEqual([
    ['agent', 'agent (formal)', { configurable: { tone: 'formal' } }],
    ['agent', 'agent (brief)', { configurable: { tone: 'brief' } }],
  ]);
  for (const a of configured) expect(a.assistant_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(all.map((a) => a.assistant_id)).size, 'distinct ids').toBe(all.length);
  expect(store().assistants.search({ limit: 100 }), 'another store holds the same').toEqual(all);
});

test('get finds an assistant by its UUID or, for its default assistant, by a graph id', () => {
  // ASSISTANT-GET, ASSISTANT-GRAPH-ID-DEFAULT
  const { assistants } = store();
  const byId = assistants.get(AGENT_ASSISTANT);
  expect(byId.graph_id).toBe('agent');
  expect(assistants.get('agent')).toEqual(byId);
  byId.config.changed = true;
  expect(assistants.get(AGENT_ASSISTANT).config, 'an answer is a copy').toEqual({});
  const [, formal] = assistants.search({ limit: 100 });
  expect(assistants.get(formal.assistant_id)).toEqual(formal);
  expect(assistants.forRun('agent').assistant_id, 'a graph id names the default, not a configured one').toBe(AGENT_ASSISTANT);
});

test('get of an unknown assistant id or graph id answers 404', () => {
  // ASSISTANT-GET-UNKNOWN-404
  const { assistants } = store();
  for (const id of ['00000000-0000-4000-8000-000000000000', 'nosuch']) {
    expect(refusalOf(() => assistants.get(id))).toMatchObject({ status: 404, message: expect.stringContaining(id) });
  }
});

test('a run names a UUID or a graph id: anything else is 422, a UUID no assistant has 404', () => {
  // RUN-CREATE-UNKNOWN-ASSISTANT
  const { assistants } = store();
  expect(assistants.forRun('agent').assistant_id).toBe(AGENT_ASSISTANT);
  expect(assistants.forRun(AGENT_ASSISTANT).graph_id).toBe('agent');
  expect(refusalOf(() => assistants.forRun('nosuch'))).toMatchObject({ status: 422, message: expect.stringContaining('agent') });
  expect(refusalOf(() => assistants.forRun(''))?.status).toBe(422);
  expect(refusalOf(() => assistants.forRun('00000000-0000-4000-8000-000000000000'))?.status).toBe(404);
});

test('search filters by graph id and metadata and pages with limit and offset', () => {
  // ASSISTANT-SEARCH, ASSISTANT-SEARCH-LIMIT, ASSISTANT-SEARCH-OFFSET
  const { assistants } = store();
  const ids = (query: Parameters<AssistantStore['search']>[0]) => assistants.search(query).map((a) => a.assistant_id);
  const all = ids({});
  expect(all).toHaveLength(3);
  expect(all[0]).toBe(AGENT_ASSISTANT);
  expect(ids({ graph_id: 'agent' })).toEqual(all);
  expect(ids({ graph_id: 'nosuch' })).toEqual([]);
  expect(ids({ metadata: { created_by: 'system' } })).toEqual([AGENT_ASSISTANT]);
  expect(ids({ metadata: { created_by: 'user' } })).toEqual([]);
  expect(ids({ metadata: { absent: 'x' } })).toEqual([]);
  expect(ids({ limit: 1, offset: 0 })).toEqual([AGENT_ASSISTANT]);
  expect(ids({ limit: 2 })).toEqual(all.slice(0, 2));
  expect(ids({ limit: 1, offset: 1 })).toEqual(all.slice(1, 2));
  expect(ids({ offset: 1 })).toEqual(all.slice(1));
  expect(ids({ offset: 3 })).toEqual([]);
});

test('clear brings back the default assistants, stamped with the time of the clear', () => {
  const { assistants, setNow } = store();
  setNow('2026-01-02T00:00:00.000Z');
  assistants.clear();
  expect(assistants.get('agent')).toMatchObject({
    assistant_id: AGENT_ASSISTANT,
    created_at: '2026-01-02T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
  });
});
