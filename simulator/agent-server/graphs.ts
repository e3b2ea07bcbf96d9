// The simulator's built-in graphs: node order, what each node writes, and how each state
// key combines an update with the current value (LangGraph's channel reducers). The same
// graph exists as a real LangGraph JS graph in fixtures/langgraph-graph for real deployments.
//
// Behaviour a run can ask for through its input (never stored in state):
//   delay_ms   the graph waits this long (on the simulator's clock) before its last node, in
//              place of the run duration the simulator was started with
//   fail       the last node raises an error
//   interrupt  the graph stops before its last node (the thread is then interrupted)

export type Reducer = 'append' | 'replace';

type Values = Record<string, unknown>;

export interface GraphDefinition {
  graphId: string;
  /** Nodes in execution order; a run visits each once. */
  nodes: string[];
  /** Keys not listed here are replaced by an update. */
  reducers: Record<string, Reducer>;
  /** What a node writes, given the state before it. */
  write: (node: string, state: Values) => Values;
}

const CONTROL_KEYS = ['delay_ms', 'fail', 'interrupt'] as const;

export interface RunControls {
  delayMs: number;
  fail: boolean;
  interrupt: boolean;
}

/** The text a run answers: the last human message, else the topic. */
function lastText(state: Values): string {
  const messages = Array.isArray(state.messages) ? (state.messages as { role?: unknown; type?: unknown; content?: unknown }[]) : [];
  const human = messages.filter((m) => m.role === 'human' || m.role === 'user' || m.type === 'human').at(-1)?.content;
  return typeof human === 'string' ? human : typeof state.topic === 'string' ? state.topic : '';
}

export const GRAPHS: GraphDefinition[] = [
  {
    graphId: 'agent',
    nodes: ['prepare', 'respond'],
    reducers: { messages: 'append' },
    write: (node, state) =>
      node === 'prepare'
        ? { messages: [{ role: 'ai', content: `prepared: ${lastText(state)}` }] }
        : { messages: [{ role: 'ai', content: `echo: ${lastText(state)}` }] },
  },
];

export const INPUT_NODE = '__input__';
const START_NODE = '__start__';

export function findGraph(graphId: unknown): GraphDefinition | undefined {
  return GRAPHS.find((g) => g.graphId === graphId);
}

/** Splits a run's input into the state update and the behaviour it asks for. */
export function splitInput(input: Values | null | undefined): { update: Values; controls: RunControls } {
  const update: Values = {};
  for (const [key, value] of Object.entries(input ?? {})) if (!(CONTROL_KEYS as readonly string[]).includes(key)) update[key] = value;
  const delay = Number(input?.delay_ms ?? 0);
  return {
    update,
    controls: { delayMs: Number.isFinite(delay) && delay > 0 ? delay : 0, fail: input?.fail === true, interrupt: input?.interrupt === true },
  };
}

/** Applies one update to state values with the graph's reducers (replace when no graph is known). */
export function applyUpdate(graph: GraphDefinition | undefined, values: Values, update: Values): Values {
  const out = structuredClone(values);
  for (const [key, value] of Object.entries(update)) {
    const reducer = graph?.reducers[key] ?? 'replace';
    if (reducer === 'append') {
      const current = Array.isArray(out[key]) ? (out[key] as unknown[]) : [];
      out[key] = [...current, ...(Array.isArray(value) ? value : [value])];
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}

/** The nodes due after `asNode` wrote: the graph's successor, or nothing at the end. */
export function nextAfter(graph: GraphDefinition | undefined, asNode: string): string[] {
  if (asNode === INPUT_NODE) return graph ? graph.nodes.slice(0, 1) : [];
  if (!graph) return [];
  if (asNode === START_NODE) return graph.nodes.slice(0, 1);
  const index = graph.nodes.indexOf(asNode);
  return index >= 0 && index + 1 < graph.nodes.length ? [graph.nodes[index + 1]] : [];
}

/** A superstep's as_node: __input__, __start__ or a node of the graph (THREAD-SUPERSTEPS-AS-NODE). */
export function isKnownNode(graph: GraphDefinition, asNode: string): boolean {
  return asNode === INPUT_NODE || asNode === START_NODE || graph.nodes.includes(asNode);
}
