// Assistants (§2.10): a default assistant per graph, found by its UUID or its graph id, and a few
// configured assistants of the built-in graph beside it (a graph id selects the default one, so a
// deployment may hold others): assistant search then has several assistants to page through.
import { createHash } from 'node:crypto';
import type { Assistant, AssistantCreate, AssistantSearch, AssistantUpdate } from '../../specs/types/agent-server.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { GRAPHS } from './graphs.ts';

/** An assistant as the simulator holds and answers it: every field of the reference set (ASSISTANT-SHAPE, ASSISTANT-OTHER-FIELDS). */
export interface AssistantRecord extends Assistant {
  graph_id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

// The namespace the real server derives default assistant ids from (uuid5 of the graph id).
const ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

/**
 * The configured assistants seeded beside each graph's default: a name and the configuration it
 * gives its runs. Their ids are name-based too, so every run of the simulator holds the same ones.
 */
const CONFIGURED: { graphId: string; name: string; configurable: Record<string, unknown> }[] = [
  { graphId: 'agent', name: 'agent (formal)', configurable: { tone: 'formal' } },
  { graphId: 'agent', name: 'agent (brief)', configurable: { tone: 'brief' } },
];

/** RFC 4122 version-5 UUID: the same graph id always names the same default assistant (ASSISTANT-ID-UUID). */
export function uuid5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name)
    .digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id of a graph's default assistant, as the real server derives it (uuid5 of the graph id). */
const defaultAssistantId = (graphId: string) => uuid5(graphId, ASSISTANT_NAMESPACE);

export class AssistantStore {
  private assistants: AssistantRecord[] = [];

  /** `newId` names an assistant created without an id. */
  constructor(
    private readonly now: () => string,
    private readonly newId: () => string,
  ) {
    this.clear();
  }

  clear(): void {
    const at = this.now();
    const record = (assistantId: string, graphId: string, fields: Partial<AssistantRecord>): AssistantRecord => ({
      assistant_id: assistantId,
      graph_id: graphId,
      name: graphId,
      description: null,
      config: {}, // ASSISTANT-CONFIG
      context: {},
      metadata: {},
      version: 1,
      created_at: at,
      updated_at: at,
      ...fields,
    });
    this.assistants = [
      ...GRAPHS.map((graph) => record(defaultAssistantId(graph.graphId), graph.graphId, { metadata: { created_by: 'system' } })),
      ...CONFIGURED.map((c) =>
        record(uuid5(`${c.graphId}/${c.name}`, ASSISTANT_NAMESPACE), c.graphId, {
          name: c.name,
          description: `An assistant of graph ${c.graphId} configured with ${JSON.stringify(c.configurable)}.`,
          config: { configurable: c.configurable },
        }),
      ),
    ];
  }

  snapshot(): AssistantRecord[] {
    return structuredClone(this.assistants);
  }

  restore(snapshot: AssistantRecord[]): void {
    this.assistants = snapshot.map((a) => structuredClone(a));
  }

  /**
   * An assistant by UUID, or the default assistant of a graph by graph id (ASSISTANT-GET, ASSISTANT-GRAPH-ID-DEFAULT);
   * 404 for neither (ASSISTANT-GET-UNKNOWN-404).
   */
  get(idOrGraph: string): AssistantRecord {
    return structuredClone(this.recordOf(idOrGraph));
  }

  private recordOf(idOrGraph: string): AssistantRecord {
    const byGraph = GRAPHS.some((g) => g.graphId === idOrGraph) ? defaultAssistantId(idOrGraph) : undefined;
    const found = this.assistants.find((a) => a.assistant_id === idOrGraph || a.assistant_id === byGraph);
    if (!found) {
      throw notFound(`No assistant found for "${idOrGraph}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`);
    }
    return found;
  }

  /**
   * ASSISTANT-CREATE: a new assistant of a deployed graph at version 1 (404 for a graph the server does
   * not have: its runs could not run). An assistant_id it holds answers 409, or that assistant with
   * if_exists do_nothing.
   */
  create(body: AssistantCreate): AssistantRecord {
    requireGraph(body.graph_id);
    const existing = body.assistant_id === undefined ? undefined : this.assistants.find((a) => a.assistant_id === body.assistant_id);
    if (existing) {
      if (body.if_exists === 'do_nothing') return structuredClone(existing);
      throw conflict(`Assistant ${existing.assistant_id} already exists (if_exists do_nothing answers it instead)`);
    }
    const at = this.now();
    const record: AssistantRecord = {
      assistant_id: body.assistant_id ?? this.newId(),
      graph_id: body.graph_id,
      name: body.name ?? 'Untitled',
      description: body.description ?? null,
      config: structuredClone(body.config ?? {}),
      context: structuredClone(body.context ?? {}),
      metadata: structuredClone(body.metadata ?? {}),
      version: 1,
      created_at: at,
      updated_at: at,
    };
    this.assistants.push(record);
    return structuredClone(record);
  }

  /** ASSISTANT-UPDATE: the next version; the fields given replace the assistant's, its metadata merged. */
  update(idOrGraph: string, patch: AssistantUpdate): AssistantRecord {
    if (patch.graph_id !== undefined) requireGraph(patch.graph_id);
    const record = this.recordOf(idOrGraph);
    if (patch.graph_id !== undefined) record.graph_id = patch.graph_id;
    if (patch.config !== undefined) record.config = structuredClone(patch.config ?? {});
    if (patch.context !== undefined) record.context = structuredClone(patch.context ?? {});
    if (patch.name !== undefined && patch.name !== null) record.name = patch.name;
    if (patch.description !== undefined) record.description = patch.description;
    record.metadata = { ...record.metadata, ...structuredClone(patch.metadata ?? {}) };
    record.version += 1;
    record.updated_at = this.now();
    return structuredClone(record);
  }

  /** ASSISTANT-DELETE: forgets the assistant (its runs and crons are the server's: AgentServer.deleteAssistant). */
  delete(idOrGraph: string): void {
    const record = this.recordOf(idOrGraph);
    this.assistants = this.assistants.filter((a) => a !== record);
  }

  /** The assistant a run names: a UUID or a graph id (422 for anything else, as the reference; RUN-CREATE-ASSISTANT-ID, RUN-CREATE-UNKNOWN-ASSISTANT). */
  forRun(idOrGraph: string): AssistantRecord {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrGraph);
    if (!isUuid && !GRAPHS.some((g) => g.graphId === idOrGraph)) {
      throw new ApiError(
        422,
        `Invalid assistant: '${idOrGraph}'. Must be either: a valid assistant UUID, or one of the registered graphs: ${GRAPHS.map((g) => g.graphId).join(', ')}`,
      );
    }
    return this.get(idOrGraph);
  }

  /** An array of assistants (ASSISTANT-SEARCH, ASSISTANT-SEARCH-FORMAT), offset then limit (ASSISTANT-SEARCH-OFFSET, ASSISTANT-SEARCH-LIMIT). */
  search(query: AssistantSearch): AssistantRecord[] {
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 10;
    return this.assistants
      .filter((a) => (query.graph_id ? a.graph_id === query.graph_id : true))
      .filter((a) => Object.entries(query.metadata ?? {}).every(([k, v]) => JSON.stringify(a.metadata[k]) === JSON.stringify(v)))
      .slice(offset, offset + limit)
      .map((a) => structuredClone(a));
  }
}

/** An assistant configures a graph the server has (404 naming those it has). */
function requireGraph(graphId: string): void {
  if (!GRAPHS.some((g) => g.graphId === graphId)) {
    throw notFound(`Graph '${graphId}' not found: the graphs of this server are ${GRAPHS.map((g) => g.graphId).join(', ')}`);
  }
}
