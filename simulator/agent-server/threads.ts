// Threads and their checkpoints (spec §2.7, §2.8, §3, §4.5). Plain state, no HTTP:
// the routes translate requests into these calls.
import { copyJson } from '../copy-json.ts';
import { ApiError, notFound, unprocessable } from '../http/errors.ts';
import type { Clock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import type { CheckpointRef, Superstep, Thread, ThreadCount, ThreadCreate, ThreadSearch, ThreadState, ThreadUpdate } from '../../specs/types/agent-server.ts';
import { applyUpdate, findGraph, INPUT_NODE, isKnownNode, nextAfter, type GraphDefinition } from './graphs.ts';

type Values = Record<string, unknown>;

export interface Checkpoint {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  values: Values;
  next: string[];
  source: 'input' | 'loop' | 'update' | 'fork';
  step: number;
  writes: Record<string, unknown> | null;
  created_at: string;
  /** Extra checkpoint metadata (run ids and the like). */
  extra: Record<string, unknown>;
}

/** A thread as stored: its fields but `values`, which its last checkpoint holds. */
export interface ThreadRecord extends Pick<Thread, 'thread_id' | 'created_at' | 'updated_at' | 'metadata' | 'status' | 'config'> {
  /** Oldest first. */
  checkpoints: Checkpoint[];
  /** Creation order, the tie-breaker when sort keys are equal on the virtual clock. */
  seq: number;
}

// THREAD-SEARCH-DEFAULTS: at most 10 threads from offset 0, newest created first.
const SEARCH_DEFAULTS = { limit: 10, offset: 0, sort_by: 'created_at', sort_order: 'desc' } as const;
const HISTORY_DEFAULT_LIMIT = 10;

export class ThreadStore {
  private threads = new Map<string, ThreadRecord>();
  private seq = 0;

  constructor(private readonly env: { clock: Clock; ids: IdGenerator }) {}

  clear(): void {
    this.threads.clear();
    this.seq = 0;
  }

  /** The whole store as plain JSON (GET /__sim/snapshot). */
  snapshot(): { threads: ThreadRecord[]; seq: number } {
    return structuredClone({ threads: [...this.threads.values()], seq: this.seq });
  }

  restore(snapshot: { threads: ThreadRecord[]; seq: number }): void {
    this.threads = new Map(snapshot.threads.map((t) => [t.thread_id, structuredClone(t)]));
    this.seq = snapshot.seq;
  }

  /**
   * THREAD-CREATE-EMPTY, THREAD-CREATE-IDLE, THREAD-CREATE-VALUES-METADATA: an idle thread, its metadata
   * kept as given, graph_id included (THREAD-CREATE-METADATA, THREAD-CREATE-GRAPH-ID), prepopulated by
   * its supersteps (THREAD-CREATE-SUPERSTEPS).
   */
  create(input: ThreadCreate): Thread {
    const metadata = copyJson(input.metadata ?? {});
    const supersteps = input.supersteps ?? [];
    const graph = supersteps.length > 0 ? requireGraphFor(metadata, supersteps) : undefined;
    const now = this.env.clock.iso();
    const record: ThreadRecord = {
      thread_id: this.env.ids.uuid(),
      created_at: now,
      updated_at: now,
      metadata,
      status: 'idle',
      config: {},
      checkpoints: [],
      seq: this.seq++,
    };
    for (const superstep of supersteps) this.applySuperstep(record, graph, superstep);
    this.threads.set(record.thread_id, record);
    return view(record);
  }

  /** THREAD-GET. */
  get(threadId: string): Thread {
    return view(this.record(threadId));
  }

  /** The stored record, for other agent-server modules (runs) that change a thread. */
  record(threadId: string): ThreadRecord {
    const record = this.threads.get(threadId);
    // Unknown threads answer 404 wherever a thread is named (THREAD-GET-UNKNOWN-404, THREAD-UNKNOWN-404, THREAD-COPY-UNKNOWN).
    if (!record) throw notFound(`Thread with ID ${threadId} not found`);
    return record;
  }

  delete(threadId: string): void {
    this.record(threadId);
    this.threads.delete(threadId);
  }

  /**
   * THREAD-UPDATE: the metadata given is merged into the thread's. A ttl is refused (422 naming it): the
   * simulator expires no thread, and an update it ignored would be silently wrong.
   */
  update(threadId: string, patch: ThreadUpdate): Thread {
    if (patch.ttl !== undefined && patch.ttl !== null) {
      throw unprocessable('ttl is not served by the simulator: it expires no thread, so it refuses a ttl rather than ignore it', [
        { loc: ['body', 'ttl'], msg: 'the simulator does not expire threads', type: 'not_served' },
      ]);
    }
    const record = this.record(threadId);
    record.metadata = { ...record.metadata, ...copyJson(patch.metadata ?? {}) };
    record.updated_at = this.env.clock.iso();
    return view(record);
  }

  /** THREAD-COUNT: how many threads match the filters a search takes, with no limit or offset. */
  count(query: ThreadCount): number {
    let n = 0;
    for (const t of this.threads.values()) if (matches(t, query)) n++;
    return n;
  }

  /** The ids of the threads whose metadata holds every key of `metadata` with an equal value. */
  withMetadata(metadata: Values): string[] {
    return [...this.threads.values()].filter((t) => contains(t.metadata, metadata)).map((t) => t.thread_id);
  }

  /**
   * A new thread (THREAD-COPY-NEW, THREAD-COPY-FORMAT) holding the original's metadata, config and
   * checkpoints as they are now (THREAD-COPY-STATE); nothing is shared (THREAD-COPY-INDEPENDENT).
   */
  copy(threadId: string): Thread {
    const source = this.record(threadId);
    const now = this.env.clock.iso();
    const copy: ThreadRecord = {
      ...structuredClone(source),
      thread_id: this.env.ids.uuid(),
      created_at: now,
      updated_at: now,
      status: 'idle',
      seq: this.seq++,
    };
    this.threads.set(copy.thread_id, copy);
    return view(copy);
  }

  /** An array of threads (THREAD-SEARCH-ARRAY), filtered, sorted, then offset and limit. */
  search(query: ThreadSearch): Thread[] {
    const sortBy = query.sort_by ?? SEARCH_DEFAULTS.sort_by;
    const order = query.sort_order ?? SEARCH_DEFAULTS.sort_order;
    // asc and desc only (THREAD-SEARCH-SORT-ORDER-VALUES).
    if (order !== 'asc' && order !== 'desc') {
      throw unprocessable(`sort_order must be 'asc' or 'desc', got '${order}'`, [
        { loc: ['body', 'sort_order'], msg: "must be 'asc' or 'desc'", type: 'enum' },
      ]);
    }
    const direction = order === 'asc' ? 1 : -1;
    const offset = query.offset ?? SEARCH_DEFAULTS.offset;
    const limit = query.limit ?? SEARCH_DEFAULTS.limit;
    return [...this.threads.values()]
      .filter((t) => (query.ids ? query.ids.includes(t.thread_id) : true))
      .filter((t) => matches(t, query))
      .sort((a, b) => direction * (compare(a[sortBy], b[sortBy]) || a.seq - b.seq)) // THREAD-SEARCH-SORT, THREAD-SEARCH-SORT-ORDER
      .slice(offset, offset + limit) // THREAD-SEARCH-OFFSET, THREAD-SEARCH-LIMIT
      .map(view);
  }

  /** THREAD-STATE; at a checkpoint, THREAD-STATE-CHECKPOINT (an unknown one: THREAD-STATE-CHECKPOINT-UNKNOWN). */
  state(threadId: string, checkpointId?: string): ThreadState {
    const record = this.record(threadId);
    if (checkpointId === undefined) return snapshot(record, record.checkpoints.at(-1));
    const checkpoint = record.checkpoints.find((c) => c.checkpoint_id === checkpointId);
    if (!checkpoint) throw notFound(`Checkpoint ${checkpointId} not found in thread ${threadId}`);
    return snapshot(record, checkpoint);
  }

  /** Snapshots most recent first, at most `limit` (THREAD-HISTORY, THREAD-HISTORY-ORDER, THREAD-HISTORY-LIMIT). */
  history(threadId: string, options: { limit?: number; before?: string } = {}): ThreadState[] {
    const record = this.record(threadId);
    let checkpoints = [...record.checkpoints].reverse();
    if (options.before !== undefined) {
      const index = checkpoints.findIndex((c) => c.checkpoint_id === options.before);
      if (index < 0) throw notFound(`Checkpoint ${options.before} not found in thread ${threadId}`);
      checkpoints = checkpoints.slice(index + 1);
    }
    return checkpoints.slice(0, options.limit ?? HISTORY_DEFAULT_LIMIT).map((c) => snapshot(record, c));
  }

  /** Writes a checkpoint on a thread: the one way thread state changes after creation. */
  writeCheckpoint(
    record: ThreadRecord,
    checkpoint: Omit<Checkpoint, 'checkpoint_id' | 'parent_checkpoint_id' | 'created_at' | 'step'> & { step?: number },
  ): Checkpoint {
    const parent = record.checkpoints.at(-1);
    const written: Checkpoint = {
      ...checkpoint,
      step: checkpoint.step ?? (parent ? parent.step + 1 : -1),
      checkpoint_id: this.env.ids.uuid(),
      parent_checkpoint_id: parent?.checkpoint_id ?? null,
      created_at: this.env.clock.iso(),
    };
    record.checkpoints.push(written);
    record.updated_at = written.created_at;
    return written;
  }

  /** One checkpoint per superstep {updates: [{values, as_node}]} (THREAD-SUPERSTEPS-SHAPE, THREAD-SUPERSTEPS-HISTORY). */
  private applySuperstep(record: ThreadRecord, graph: GraphDefinition | undefined, superstep: Superstep): void {
    let values = currentValues(record);
    const writes: Record<string, unknown> = {};
    let lastNode = INPUT_NODE;
    for (const update of superstep.updates) {
      const update_values = update.values ?? {};
      values = applyUpdate(graph, values, update_values);
      writes[update.as_node] = structuredClone(update_values);
      lastNode = update.as_node;
    }
    this.writeCheckpoint(record, {
      values,
      next: nextAfter(graph, lastNode),
      source: lastNode === INPUT_NODE ? 'input' : 'update',
      writes,
      extra: {},
    });
  }
}

function requireGraphFor(metadata: Values, supersteps: Superstep[]): GraphDefinition {
  const graph = findGraph(metadata.graph_id);
  if (!graph) {
    throw unprocessable(`supersteps need metadata.graph_id naming a deployed graph (got ${JSON.stringify(metadata.graph_id ?? null)})`, [
      { loc: ['body', 'metadata', 'graph_id'], msg: 'must name a deployed graph when supersteps are given', type: 'value_error' },
    ]);
  }
  supersteps.forEach((superstep, i) => {
    superstep.updates.forEach((update, j) => {
      if (!isKnownNode(graph, update.as_node)) {
        throw new ApiError(422, `supersteps[${i}].updates[${j}].as_node '${update.as_node}' is not a node of graph '${graph.graphId}'`, [
          { loc: ['body', 'supersteps', i, 'updates', j, 'as_node'], msg: `not a node of graph '${graph.graphId}'`, type: 'value_error' },
        ]);
      }
    });
  });
  return graph;
}

/** An empty thread's values are {} (THREAD-VALUES-EMPTY). */
function currentValues(record: ThreadRecord): Values {
  return record.checkpoints.at(-1)?.values ?? {};
}

/** A thread as answered (THREAD-SHAPE). */
function view(record: ThreadRecord): Thread {
  // Only the JSON fields are copied: the rest are strings.
  return {
    thread_id: record.thread_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    metadata: copyJson(record.metadata),
    status: record.status,
    config: copyJson(record.config),
    values: copyJson(currentValues(record)),
  };
}

function ref(record: ThreadRecord, checkpointId: string | null): CheckpointRef | null {
  return checkpointId === null ? null : { checkpoint_id: checkpointId, thread_id: record.thread_id, checkpoint_ns: '' };
}

/** A state snapshot (THREAD-STATE-SHAPE). */
function snapshot(record: ThreadRecord, checkpoint: Checkpoint | undefined): ThreadState {
  const graphId = record.metadata.graph_id ?? null;
  if (!checkpoint) {
    return {
      values: {},
      next: [],
      tasks: [],
      metadata: { thread_id: record.thread_id, checkpoint_id: null, graph_id: graphId, source: null, step: null, writes: null, parents: {} },
      created_at: null,
      checkpoint: null,
      parent_checkpoint: null,
      checkpoint_id: null,
      parent_checkpoint_id: null,
    };
  }
  return copyJson({
    values: checkpoint.values,
    next: checkpoint.next,
    tasks: checkpoint.next.map((name, i) => ({ id: `${checkpoint.checkpoint_id}:${i}`, name, error: null, interrupts: [], checkpoint: null, state: null })),
    metadata: {
      ...checkpoint.extra,
      thread_id: record.thread_id,
      checkpoint_id: checkpoint.checkpoint_id,
      graph_id: graphId,
      source: checkpoint.source,
      step: checkpoint.step,
      writes: checkpoint.writes,
      parents: {},
    },
    created_at: checkpoint.created_at,
    checkpoint: ref(record, checkpoint.checkpoint_id),
    parent_checkpoint: ref(record, checkpoint.parent_checkpoint_id),
    checkpoint_id: checkpoint.checkpoint_id,
    parent_checkpoint_id: checkpoint.parent_checkpoint_id,
  });
}

/** The filters of search and count (THREAD-SEARCH-STATUS; THREAD-SEARCH-METADATA: every key). */
function matches(t: ThreadRecord, query: ThreadCount): boolean {
  return (query.status ? t.status === query.status : true) && contains(t.metadata, query.metadata) && contains(currentValues(t), query.values);
}

/** True when every key of `filter` is in `target` with a deeply equal value. */
function contains(target: Values, filter: Values | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, value]) => key in target && deepEqual(target[key], value));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Values)[k], (b as Values)[k]));
}

function compare(a: unknown, b: unknown): number {
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}
