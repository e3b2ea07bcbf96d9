// Assistants (§2.10): a default assistant per graph, found by its UUID or its graph id.
import { createHash } from 'node:crypto';
import type { Assistant, AssistantSearch } from '../../specs/types/agent-server.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { GRAPHS } from './graphs.ts';

/** An assistant as the simulator holds and answers it: every field of the reference set (ASSISTANT-SHAPE, ASSISTANT-OTHER-FIELDS). */
interface AssistantRecord extends Assistant {
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

export class AssistantStore {
  private assistants: AssistantRecord[] = [];

  constructor(private readonly now: () => string) {
    this.clear();
  }

  clear(): void {
    const at = this.now();
    this.assistants = GRAPHS.map((graph) => ({
      assistant_id: uuid5(graph.graphId, ASSISTANT_NAMESPACE),
      graph_id: graph.graphId,
      name: graph.graphId,
      description: null,
      config: {}, // ASSISTANT-CONFIG
      context: {},
      metadata: { created_by: 'system' },
      version: 1,
      created_at: at,
      updated_at: at,
    }));
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
    const found = this.assistants.find((a) => a.assistant_id === idOrGraph) ?? this.assistants.find((a) => a.graph_id === idOrGraph);
    if (!found) {
      throw notFound(`No assistant found for "${idOrGraph}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`);
    }
    return structuredClone(found);
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
