// Steps on assistants shared by the suites: a listing that held still while a check ran over it, and
// an assistant of this run made through the path the service serves (beyond §4.5, which only searches).
import { preconditionArray, precondition } from '../../harness/checks/index.ts';
import { skipForMachine, skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { Assistant } from '../../specs/types/agent-server.ts';

/** The rules whose failure explains a search for every assistant (a setup step) that answers none. */
export const EVERY_ASSISTANT = ['ASSISTANT-SEARCH', 'ASSISTANT-SEARCH-LIMIT'];

export const everyAssistant = (agent: ApiClient) => agent.post<Assistant[]>('/assistants/search', { limit: 100 });

/**
 * Every assistant, as a step of checks over each: they need some to check, and a deployed graph
 * has its default assistant (an empty answer is ASSISTANT-SEARCH's failure).
 */
export async function allAssistants(agent: ApiClient): Promise<Assistant[]> {
  const res = await everyAssistant(agent);
  const all = preconditionArray(res, 'search the assistants', undefined, EVERY_ASSISTANT);
  if (all.length === 0) skipForPrecondition(`precondition failed: the search answers no assistant: ${res.describe()}`, EVERY_ASSISTANT);
  return all;
}

const TRIES = 3;
const idsOf = (all: Assistant[]) => all.map((a) => a.assistant_id).join(',');
/** A failed expect(): the check's finding, as opposed to a skip or an error of the run. */
const isFinding = (error: unknown) => error instanceof Error && 'matcherResult' in error;

/** A search made inside a check over a stable listing: its answer's assistants are seen by the listing's guard. */
export type StableSearch = (body: { limit?: number; offset?: number }) => Promise<ApiResponse<Assistant[]>>;

/**
 * Runs `check` over every assistant, and judges it only over a listing that held still meanwhile: other
 * clients of a shared deployment (and this run's own tests of assistant creation and deletion) may add
 * or remove assistants while it runs, and a finding over a listing that changed under it is no evidence.
 * A listing equal before and after may still have changed between (an assistant made and deleted in the
 * meantime): a search of the check, made through `search`, that answers an assistant of neither listing
 * shows it did.
 */
export async function overStableAssistants(agent: ApiClient, check: (all: Assistant[], search: StableSearch) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const before = await allAssistants(agent);
    const answered = new Set<string>();
    const search: StableSearch = async (body) => {
      const res = await agent.post<Assistant[]>('/assistants/search', body);
      if (Array.isArray(res.json)) for (const a of res.json) if (typeof a?.assistant_id === 'string') answered.add(a.assistant_id);
      return res;
    };
    let finding: unknown;
    try {
      await check(before, search);
    } catch (error) {
      if (!isFinding(error)) throw error;
      finding = error;
    }
    const after = await allAssistants(agent);
    const listed = new Set([...before, ...after].map((a) => a.assistant_id));
    if (idsOf(after) === idsOf(before) && [...answered].every((id) => listed.has(id))) {
      if (finding) throw finding;
      return;
    }
    skipForMachine(attempt === TRIES, `the assistants changed while the check ran, on each of ${TRIES} tries: another client creates or deletes them`);
  }
}

/** The body of an assistant of the graph `agent`, marked as this run's and this test's. */
export const assistantBody = (agent: ApiClient, testKey: string, metadata: Record<string, unknown> = {}) => ({
  graph_id: 'agent',
  name: `apc ${testKey}`,
  config: { configurable: { tone: 'formal' } },
  metadata: { ...agent.conformanceMark, apc_test: testKey, ...metadata },
});

/** A new assistant of this run, through POST /assistants (a path the spec does not show: ASSISTANT-CREATE explains its failure). */
export async function newAssistant(agent: ApiClient, testKey: string, metadata: Record<string, unknown> = {}): Promise<Assistant> {
  const res = await agent.post<Assistant>('/assistants', assistantBody(agent, testKey, metadata));
  precondition(res, 'create an assistant');
  return res.json;
}
