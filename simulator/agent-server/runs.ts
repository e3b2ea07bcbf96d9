// Runs (§2.9, §3, §4.5): creation with the multitask strategies, execution of the
// built-in graphs step by step on the virtual clock, the event log that streams replay,
// and the thread status that follows the runs. Plain state, no HTTP.
import { StillClockWatch } from '../still-clock.ts';
import type { Log } from '../log.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { Clock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import { contract } from '../../specs/contract.ts';
import type { Run, RunCreate, RunStatus, WebhookPayload } from '../../specs/types/agent-server.ts';
import type { AssistantStore } from './assistants.ts';
import { applyUpdate, findGraph, splitInput, type GraphDefinition, type RunControls } from './graphs.ts';
import type { ThreadRecord, ThreadStore } from './threads.ts';

type MultitaskStrategy = NonNullable<RunCreate['multitask_strategy']>;

/** The documented default of the real service (LangSmith docs "Double texting", docs.langchain.com/langsmith/double-texting; MULTITASK-DEFAULT). */
const DEFAULT_MULTITASK_STRATEGY: MultitaskStrategy = 'enqueue';
const DEFAULT_STREAM_MODES = ['values'];

type Values = Record<string, unknown>;

export interface RunEvent {
  /** Position in the run's event log: the SSE id. */
  id: number;
  event: string;
  data: unknown;
}

/** How a run failed: the `error` of the webhook payload (§6, §7). */
export type RunError = NonNullable<WebhookPayload['error']>;

/** A run as stored: the fields the API answers, all set, and the simulator's own. */
export interface RunRecord extends Run {
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Values;
  kwargs: Values;
  multitask_strategy: MultitaskStrategy;
  run_started_at?: string;
  run_ended_at?: string;
  error?: RunError;
  webhook?: string;
  /** A stateless run's thread exists only while it runs. */
  temporary: boolean;
  events: RunEvent[];
  controls: RunControls;
  /** The state update of the input, or null to resume an interrupted thread. */
  update: Values | null;
  listeners: Set<(event: RunEvent | 'end') => void>;
  cancelDelay?: () => void;
}

/** A run as a snapshot holds it: no listeners, no timer. */
type StoredRunRecord = Omit<RunRecord, 'listeners' | 'cancelDelay'> & Pick<RunRecord, 'run_id'>;

export interface RunHooks {
  /** Called once when a run reaches a final status (webhook delivery). */
  onFinished?: (run: RunRecord, thread: ThreadRecord | undefined) => void;
  /** Checks a webhook URL before a run is created; throws ApiError to refuse it. */
  checkWebhook?: (url: string) => void;
}

// A run is pending, then running, then one of the statuses that end it, which it keeps (RUN-STATUS-VALUES,
// RUN-STATUS-FINAL, RUN-STATUSES-TRANSITIONS): the contract's RunStatus says which (`ended`).
const ENDED = new Set(contract().runStatuses.ended);
export const hasEnded = (status: RunStatus) => ENDED.has(status);

interface RunStoreOptions {
  /**
   * How long a run of a built-in graph takes, in simulated ms, spread evenly over its nodes
   * (default 0: a run completes as it is created). A run whose input asks for `delay_ms` takes
   * that long instead.
   */
  durationMs?: number;
  /** Where a join or wait that the virtual clock holds is told (still-clock.ts). */
  log?: Log;
}

export class RunStore {
  private runs = new Map<string, RunRecord>();
  private order: string[] = [];
  private readonly still: StillClockWatch;

  constructor(
    private readonly env: { clock: Clock; ids: IdGenerator },
    private readonly threads: ThreadStore,
    private readonly assistants: AssistantStore,
    private readonly hooks: RunHooks = {},
    private readonly options: RunStoreOptions = {},
  ) {
    this.still = new StillClockWatch(env.clock, options.log);
  }

  clear(): void {
    for (const run of this.runs.values()) run.cancelDelay?.();
    this.runs.clear();
    this.order = [];
  }

  /**
   * The runs as plain JSON. A run in progress is a position in a graph and a timer, which a
   * snapshot does not capture: it is refused (409) until every run has ended.
   */
  snapshot(): { runs: StoredRunRecord[]; order: string[] } {
    const active = [...this.runs.values()].filter((r) => !hasEnded(r.status));
    if (active.length > 0) {
      const ids = active.map((r) => `${r.run_id} (${r.status})`).join(', ');
      throw conflict(`Cannot snapshot while runs are in progress: ${ids}. Wait for them to end (or advance the virtual clock) and try again.`);
    }
    return structuredClone({ runs: [...this.runs.values()].map(({ listeners: _l, cancelDelay: _c, ...run }) => run), order: this.order });
  }

  restore(snapshot: { runs: StoredRunRecord[]; order: string[] }): void {
    const runs = new Map(snapshot.runs.map((run): [string, RunRecord] => [run.run_id, { ...structuredClone(run), listeners: new Set() } as RunRecord]));
    if (snapshot.order.some((id) => !runs.has(id))) throw new TypeError('runs.order names a run the snapshot does not hold');
    this.clear();
    this.runs = runs;
    this.order = [...snapshot.order];
  }

  /** Forgets the runs of a deleted thread: those in progress stop, their streams end, no webhook is sent. */
  forgetThread(threadId: string): void {
    for (const run of [...this.runs.values()].filter((r) => r.thread_id === threadId)) {
      run.cancelDelay?.();
      if (!hasEnded(run.status)) run.status = 'interrupted';
      this.runs.delete(run.run_id);
      this.close(run);
    }
    this.order = this.order.filter((id) => this.runs.has(id));
  }

  /**
   * Forgets the runs of a deleted assistant: those in progress stop (no webhook), and their threads, which
   * stay, go on with their other runs. A stateless run's temporary thread goes with it.
   */
  forgetAssistant(assistantId: string): void {
    const threads = new Set<ThreadRecord>();
    for (const run of [...this.runs.values()].filter((r) => r.assistant_id === assistantId)) {
      run.cancelDelay?.();
      const stopped = !hasEnded(run.status);
      if (stopped) run.status = 'interrupted';
      this.runs.delete(run.run_id);
      this.close(run);
      if (!stopped) continue;
      if (run.temporary) this.threads.delete(run.thread_id);
      else threads.add(this.threads.record(run.thread_id));
    }
    this.order = this.order.filter((id) => this.runs.has(id));
    for (const thread of threads) this.settle(thread);
  }

  /**
   * RUN-CANCEL: ends a pending or running run. `interrupt` keeps it, interrupted, with the steps it completed,
   * as the multitask strategy of that name does; `rollback` deletes it with what it wrote. A run that has
   * ended is left as it is. The thread then runs its next queued run, or is idle.
   */
  cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback'): void {
    const run = this.get(threadId, runId);
    if (hasEnded(run.status)) return;
    const thread = this.threads.record(run.thread_id);
    if (action === 'interrupt') {
      this.finish(run, thread, 'interrupted');
      return;
    }
    this.rollback(run, thread, 'the run was cancelled with action rollback');
    if (run.temporary) this.threads.delete(thread.thread_id);
    else this.settle(thread);
  }

  /** After runs were taken away from a thread: busy while some remain (the next queued one starts), else idle. */
  private settle(thread: ThreadRecord): void {
    if (this.active(thread.thread_id).length > 0) {
      thread.status = 'busy';
      this.startNext(thread);
    } else thread.status = 'idle';
    thread.updated_at = this.env.clock.iso();
  }

  /**
   * Creates a run on a thread (RUN-CREATE), applying the multitask strategy when the thread is busy
   * (MULTITASK-STRATEGIES). An unknown thread creates nothing (RUN-CREATE-UNKNOWN-THREAD-404).
   */
  create(threadId: string, body: RunCreate): RunRecord {
    const thread = this.threads.record(threadId);
    const assistant = this.assistants.forRun(body.assistant_id);
    // The wire name multitask_strategy (MULTITASK-WIRE-NAME).
    const strategy = body.multitask_strategy ?? DEFAULT_MULTITASK_STRATEGY;
    if (body.webhook !== undefined) this.hooks.checkWebhook?.(body.webhook);
    const inFlight = this.active(thread.thread_id);
    if (inFlight.length > 0) {
      if (strategy === 'reject') {
        // 409 before anything is created; the run in progress goes on (MULTITASK-REJECT-409, MULTITASK-REJECT-NOT-CREATED,
        // MULTITASK-REJECT-ORIGINAL-CONTINUES, MULTITASK-REJECT-BODY).
        throw conflict('Thread is already running a task. Wait for it to finish or choose a different multitask strategy.');
      }
      for (const earlier of inFlight) {
        if (strategy === 'rollback') this.rollback(earlier, thread, 'the run was rolled back by a later run (multitask_strategy rollback)');
        // Kept, interrupted, with the steps it completed (MULTITASK-INTERRUPT-KEEPS, MULTITASK-INTERRUPT-STATUS).
        if (strategy === 'interrupt') this.finish(earlier, thread, 'interrupted', undefined, false);
      }
    }
    const run = this.record(thread, assistant.assistant_id, assistant.graph_id, body, strategy, false);
    // As the reference: the thread keeps the configurable its runs were given (§2.7 config.configurable, THREAD-CONFIG-CONFIGURABLE).
    const configurable = (run.kwargs.config as Values).configurable as Values;
    thread.config = { ...thread.config, configurable: { ...((thread.config.configurable as Values | undefined) ?? {}), ...configurable } };
    thread.status = 'busy'; // THREAD-STATUS-BUSY-DURING-RUN
    thread.updated_at = this.env.clock.iso();
    this.startNext(thread);
    return run;
  }

  /** A stateless run: a temporary thread that is deleted when the run ends. */
  createStateless(body: RunCreate): RunRecord {
    const assistant = this.assistants.forRun(body.assistant_id);
    if (body.webhook !== undefined) this.hooks.checkWebhook?.(body.webhook);
    const created = this.threads.create({ metadata: { graph_id: assistant.graph_id } });
    const thread = this.threads.record(created.thread_id);
    const run = this.record(thread, assistant.assistant_id, assistant.graph_id, body, 'enqueue', true);
    thread.status = 'busy';
    this.startNext(thread);
    return run;
  }

  /** The run (RUN-GET), as soon as it is created (RUN-LOOKUP). */
  get(threadId: string, runId: string): RunRecord {
    this.threads.record(threadId);
    const run = this.runs.get(runId);
    // An unknown run, one of another thread (RUN-GET-UNKNOWN-404, RUN-JOIN-UNKNOWN-404), or one deleted by rollback
    // (MULTITASK-ROLLBACK-LOOKUP-FAILS, MULTITASK-ROLLBACK-LOOKUP-404, MULTITASK-ROLLBACK-LOOKUP-RESPONSE) answers 404.
    if (!run || run.thread_id !== threadId) throw notFound(`Run ${runId} not found on thread ${threadId}`);
    return run;
  }

  /** Runs of a thread, newest first. */
  list(threadId: string, query: { limit?: number; offset?: number; status?: string }): Run[] {
    this.threads.record(threadId);
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 10;
    return this.order
      .map((id) => this.runs.get(id)!)
      .filter((r) => r.thread_id === threadId && (query.status ? r.status === query.status : true))
      .reverse()
      .slice(offset, offset + limit)
      .map(view);
  }

  /** Resolves once the run has a final status. */
  whenFinished(run: RunRecord): Promise<RunRecord> {
    if (hasEnded(run.status)) return Promise.resolve(run);
    const finished = new Promise<RunRecord>((resolve) => {
      const listener = (event: RunEvent | 'end') => {
        if (event !== 'end') return;
        run.listeners.delete(listener);
        resolve(run);
      };
      run.listeners.add(listener);
    });
    this.still.watch(`A request for the end of run ${run.run_id} (thread ${run.thread_id})`, finished);
    return finished;
  }

  /** What wait and join answer: the final state values, or the error (RUN-JOIN-FORMAT, RUN-WAIT-FORMAT). */
  result(run: RunRecord): Values {
    if (run.status === 'error' && run.error) return { __error__: run.error };
    const last = [...run.events].reverse().find((e) => e.event === 'values');
    return (last?.data as Values | undefined) ?? {};
  }

  private record(thread: ThreadRecord, assistantId: string, graphId: string, body: RunCreate, strategy: MultitaskStrategy, temporary: boolean): RunRecord {
    const now = this.env.clock.iso();
    const runId = this.env.ids.uuid();
    // The input object is the graph's input (RUN-CREATE-INPUT).
    const { update, controls } = splitInput(body.input ?? undefined);
    const streamMode = body.stream_mode === undefined ? DEFAULT_STREAM_MODES : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
    const metadata = { ...(body.metadata ?? {}) };
    const run: RunRecord = {
      run_id: runId,
      thread_id: thread.thread_id,
      assistant_id: assistantId,
      created_at: now,
      updated_at: now,
      status: 'pending',
      metadata,
      kwargs: {
        input: body.input ?? null,
        config: {
          ...(body.config ?? {}),
          configurable: {
            ...((body.config?.configurable as Values | undefined) ?? {}),
            thread_id: thread.thread_id,
            run_id: runId,
            graph_id: graphId,
            assistant_id: assistantId,
          },
        },
        stream_mode: streamMode,
        webhook: body.webhook ?? null,
        temporary,
      },
      multitask_strategy: strategy,
      webhook: body.webhook,
      temporary,
      events: [],
      controls,
      update: body.input === null ? null : update,
      listeners: new Set(),
    };
    this.runs.set(runId, run);
    this.order.push(runId);
    this.emit(run, 'metadata', { run_id: runId, attempt: 1 }); // STREAM-SSE-FIRST-METADATA
    return run;
  }

  private active(threadId: string): RunRecord[] {
    return this.order.map((id) => this.runs.get(id)!).filter((r) => r.thread_id === threadId && !hasEnded(r.status));
  }

  /** Starts the thread's oldest pending run when nothing runs on it: runs apply in creation order (MULTITASK-ENQUEUE-ORDER). */
  private startNext(thread: ThreadRecord): void {
    const active = this.active(thread.thread_id);
    if (active.some((r) => r.status === 'running')) return;
    const next = active.find((r) => r.status === 'pending');
    if (next) this.execute(next, thread);
  }

  private execute(run: RunRecord, thread: ThreadRecord): void {
    const graph = findGraph(thread.metadata.graph_id) ?? findGraph(this.assistants.get(run.assistant_id).graph_id)!;
    if (thread.metadata.graph_id === undefined) thread.metadata.graph_id = graph.graphId;
    run.status = 'running';
    run.run_started_at = this.env.clock.iso();
    run.updated_at = run.run_started_at;
    const last = thread.checkpoints.at(-1);
    let pending: string[];
    if (run.update === null && last && last.next.length > 0) {
      pending = [...last.next];
    } else {
      const values = applyUpdate(graph, last?.values ?? {}, run.update ?? {});
      this.checkpoint(run, thread, values, graph.nodes.slice(0, 1), 'input', { __input__: run.update ?? {} });
      pending = [...graph.nodes];
    }
    this.step(run, thread, graph, pending);
  }

  /**
   * Runs the pending nodes in order. Each node takes its share of the run's duration; a run whose
   * input asks for a delay instead waits that long before its last node: the run pauses on the
   * clock until then. An interrupt stops the run before the last node.
   */
  private step(run: RunRecord, thread: ThreadRecord, graph: GraphDefinition, pending: string[], waited = false): void {
    while (pending.length > 0) {
      if (run.status !== 'running') return;
      const node = pending[0];
      const isLast = pending.length === 1;
      if (isLast && run.controls.interrupt) {
        run.controls.interrupt = false;
        this.finish(run, thread, 'success');
        return;
      }
      // A run that asks for a delay takes that long in place of the run duration, as the fixture graph does on a real server.
      const share = run.controls.delayMs > 0 ? 0 : (this.options.durationMs ?? 0) / graph.nodes.length;
      const wait = (waited ? 0 : share) + (isLast ? run.controls.delayMs : 0);
      if (wait > 0) {
        if (isLast) run.controls.delayMs = 0;
        run.cancelDelay = this.env.clock.schedule(this.env.clock.now() + wait, () => this.step(run, thread, graph, pending, true));
        return;
      }
      waited = false;
      // The events stream mode's events (STREAM-EVENTS-MODE).
      this.emit(run, 'events', {
        event: 'on_chain_start',
        name: node,
        run_id: run.run_id,
        tags: [`graph:step:${this.stepOf(thread) + 1}`],
        metadata: { langgraph_node: node },
        data: {},
      });
      // A graph that fails ends its run as error (RUN-FAILED-STATUS-ERROR).
      if (isLast && run.controls.fail) {
        this.finish(run, thread, 'error', { error: 'SimulatedNodeError', message: `node '${node}' failed because the run's input asked for it (fail: true)` });
        return;
      }
      const before = thread.checkpoints.at(-1)?.values ?? {};
      const writes = graph.write(node, before);
      const values = applyUpdate(graph, before, writes);
      pending = pending.slice(1);
      this.emit(run, 'updates', { [node]: writes });
      this.emit(run, 'events', {
        event: 'on_chain_end',
        name: node,
        run_id: run.run_id,
        tags: [`graph:step:${this.stepOf(thread) + 1}`],
        metadata: { langgraph_node: node },
        data: { output: writes },
      });
      this.checkpoint(run, thread, values, pending.slice(0, 1), 'loop', { [node]: writes });
    }
    this.finish(run, thread, 'success');
  }

  private stepOf(thread: ThreadRecord): number {
    return thread.checkpoints.at(-1)?.step ?? -1;
  }

  /** A run's steps write the thread's state and history (RUN-WRITES-THREAD-STATE, RUN-WRITES-THREAD-HISTORY). */
  private checkpoint(run: RunRecord, thread: ThreadRecord, values: Values, next: string[], source: 'input' | 'loop', writes: Values): void {
    this.threads.writeCheckpoint(thread, { values, next, source, writes, extra: { run_id: run.run_id } });
    this.emit(run, 'values', values);
    this.emit(run, 'debug', { type: 'checkpoint', step: this.stepOf(thread), payload: { values, next } });
  }

  /**
   * Cancels an in-flight run for `rollback`: it and everything it wrote are deleted (MULTITASK-ROLLBACK-DELETES,
   * MULTITASK-ROLLBACK-STATE), and, gone from the queue, it never runs again (MULTITASK-ROLLBACK-NO-RESTART).
   */
  private rollback(run: RunRecord, thread: ThreadRecord, why: string): void {
    run.cancelDelay?.();
    thread.checkpoints = thread.checkpoints.filter((c) => c.extra.run_id !== run.run_id);
    run.status = 'interrupted';
    this.runs.delete(run.run_id);
    this.order = this.order.filter((id) => id !== run.run_id);
    this.emit(run, 'error', { error: 'RunRolledBack', message: why });
    this.close(run);
  }

  /** Ends a run; `startNext` is false while a new run is replacing the in-flight ones. */
  private finish(run: RunRecord, thread: ThreadRecord, status: RunStatus, error?: RunError, startNext = true): void {
    if (hasEnded(run.status)) return;
    run.cancelDelay?.();
    run.status = status;
    run.error = error;
    run.run_started_at ??= this.env.clock.iso();
    run.run_ended_at = this.env.clock.iso();
    run.updated_at = run.run_ended_at;
    if (error) this.emit(run, 'error', error); // STREAM-SSE-ERROR-EVENT, then the stream closes
    // Busy while runs remain, else from how this one ended (THREAD-STATUS-AFTER-RUN, THREAD-STATUS-TRANSITIONS).
    const stillActive = this.active(thread.thread_id).length > 0;
    const last = thread.checkpoints.at(-1);
    thread.status = stillActive ? 'busy' : status === 'error' ? 'error' : last && last.next.length > 0 && status === 'success' ? 'interrupted' : 'idle';
    thread.updated_at = run.run_ended_at;
    this.hooks.onFinished?.(run, thread);
    this.close(run);
    if (run.temporary) this.threads.delete(thread.thread_id);
    else if (startNext) this.startNext(thread);
  }

  private emit(run: RunRecord, event: string, data: unknown): void {
    const entry: RunEvent = { id: run.events.length, event, data: structuredClone(data) };
    run.events.push(entry);
    for (const listener of [...run.listeners]) listener(entry);
  }

  private close(run: RunRecord): void {
    for (const listener of [...run.listeners]) listener('end');
  }
}

/** A run as the API answers it (RUN-SHAPE; its other fields are the reference's: RUN-OTHER-FIELDS, RUN-CREATE-OTHER-FIELDS). */
export function view(run: RunRecord): Run {
  return structuredClone({
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    created_at: run.created_at,
    updated_at: run.updated_at,
    status: run.status,
    metadata: run.metadata,
    kwargs: run.kwargs,
    multitask_strategy: run.multitask_strategy,
  });
}
