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
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  return { assistants: new AssistantStore(() => now, newId), setNow: (t: string) => (now = t) };
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

test('create makes an assistant of a deployed graph at version 1, named Untitled unless named; its id again is a 409 unless if_exists is do_nothing', () => {
  // ASSISTANT-CREATE
  const { assistants, setNow } = store();
  setNow('2026-01-01T00:01:00.000Z');
  const created = assistants.create({ graph_id: 'agent', config: { configurable: { k: 1 } }, metadata: { team: 't' } });
  expect(created).toEqual({
    assistant_id: '00000000-0000-4000-8000-000000000001',
    graph_id: 'agent',
    name: 'Untitled',
    description: null,
    config: { configurable: { k: 1 } },
    context: {},
    metadata: { team: 't' },
    version: 1,
    created_at: '2026-01-01T00:01:00.000Z',
    updated_at: '2026-01-01T00:01:00.000Z',
  });
  expect(assistants.get(created.assistant_id)).toEqual(created);
  expect(assistants.search({ metadata: { team: 't' } })).toEqual([created]);
  expect(refusalOf(() => assistants.create({ graph_id: 'agent', assistant_id: created.assistant_id }))?.status).toBe(409);
  expect(assistants.create({ graph_id: 'agent', assistant_id: created.assistant_id, if_exists: 'do_nothing', name: 'x' })).toEqual(created);
  expect(assistants.create({ graph_id: 'agent', assistant_id: AGENT_ASSISTANT, if_exists: 'do_nothing' }).metadata).toEqual({ created_by: 'system' });
  const refused = refusalOf(() => assistants.create({ graph_id: 'nope' }));
  expect(refused?.status).toBe(404);
  expect(refused?.message).toContain("'nope'");
});

test('update makes the next version: the fields given replace the old, metadata is merged, the rest stays', () => {
  // ASSISTANT-UPDATE
  const { assistants, setNow } = store();
  const created = assistants.create({ graph_id: 'agent', name: 'one', description: 'd', config: { configurable: { k: 1 } }, metadata: { a: 1, b: 1 } });
  setNow('2026-01-01T00:02:00.000Z');
  const updated = assistants.update(created.assistant_id, { name: 'two', config: { configurable: { k: 2 } }, metadata: { b: 2, c: 3 } });
  expect(updated).toEqual({
    ...created,
    name: 'two',
    config: { configurable: { k: 2 } },
    metadata: { a: 1, b: 2, c: 3 },
    version: 2,
    updated_at: '2026-01-01T00:02:00.000Z',
  });
  expect(assistants.update(created.assistant_id, {}).version).toBe(3);
  expect(refusalOf(() => assistants.update('00000000-0000-4000-8000-00000000ffff', { name: 'x' }))?.status).toBe(404);
  expect(refusalOf(() => assistants.update(created.assistant_id, { graph_id: 'nope' }))?.status).toBe(404);
  expect(assistants.get(created.assistant_id).version, 'a refused update changes nothing').toBe(3);
});

test('delete forgets the assistant: get and a second delete answer 404', () => {
  // ASSISTANT-DELETE
  const { assistants } = store();
  const created = assistants.create({ graph_id: 'agent' });
  assistants.delete(created.assistant_id);
  expect(refusalOf(() => assistants.get(created.assistant_id))?.status).toBe(404);
  expect(refusalOf(() => assistants.delete(created.assistant_id))?.status).toBe(404);
  expect(assistants.get('agent').assistant_id, 'the others stay').toBe(AGENT_ASSISTANT);
});
