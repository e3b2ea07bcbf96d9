// The simulator's built-in graphs: their node order and how each state key combines
// an update with the current value (LangGraph's channel reducers). The same graphs exist
// as a real LangGraph JS graph in fixtures/langgraph-graph for real deployments.

export type Reducer = 'append' | 'replace';

export interface GraphDefinition {
  graphId: string;
  /** Nodes in execution order; a run visits each once. */
  nodes: string[];
  /** Keys not listed here are replaced by an update. */
  reducers: Record<string, Reducer>;
}

export const GRAPHS: GraphDefinition[] = [
  { graphId: 'agent', nodes: ['prepare', 'respond'], reducers: { messages: 'append' } },
];

export const INPUT_NODE = '__input__';
export const START_NODE = '__start__';

export function findGraph(graphId: unknown): GraphDefinition | undefined {
  return GRAPHS.find((g) => g.graphId === graphId);
}

/** Applies one update to state values with the graph's reducers (replace when no graph is known). */
export function applyUpdate(
  graph: GraphDefinition | undefined,
  values: Record<string, unknown>,
  update: Record<string, unknown>,
): Record<string, unknown> {
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
  if (asNode === INPUT_NODE) return [START_NODE];
  if (!graph) return [];
  if (asNode === START_NODE) return graph.nodes.slice(0, 1);
  const index = graph.nodes.indexOf(asNode);
  return index >= 0 && index + 1 < graph.nodes.length ? [graph.nodes[index + 1]] : [];
}

export function isKnownNode(graph: GraphDefinition, asNode: string): boolean {
  return asNode === INPUT_NODE || asNode === START_NODE || graph.nodes.includes(asNode);
}
