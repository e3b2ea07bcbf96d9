// The multitask `reject` race (MULTITASK-REJECT-409, MULTITASK-REJECT-NOT-CREATED,
// MULTITASK-REJECT-ORIGINAL-CONTINUES) against any agent server over HTTP: many run creations
// sent at once to one idle thread, then as many again while the winner runs. Used by the
// simulator's test and by the open-source server's; each asserts what it expects.

/** How many creations each wave sends in parallel. */
export const WAVE = 50;

interface Answer {
  status: number;
  body: unknown;
}

export interface RaceOutcome {
  threadId: string;
  /** The answers of the creations sent to the idle thread, in sending order. */
  first: Answer[];
  /** The answers of those sent while the accepted run was still in progress. */
  second: Answer[];
  /** The ids of the runs created (answered 200), in sending order. */
  accepted: string[];
  /** The run ids the thread lists once every answer is in. */
  listed: string[];
  /** The accepted runs' final statuses, after joining them. */
  finals: string[];
}

async function call(url: string, method: string, body?: unknown): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: res.status, body: parsed };
}

const runIdOf = (answer: Answer) => (answer.body as { run_id?: string }).run_id;

/**
 * Creates a thread, sends WAVE creations with `reject` at once, then WAVE more, joins whatever
 * was accepted and lists the thread's runs. `input` must keep a run in progress long enough
 * for both waves to arrive (the simulator's run duration, or the real graph's delay_ms).
 */
export async function rejectRace(baseUrl: string, input: Record<string, unknown>): Promise<RaceOutcome> {
  const thread = await call(`${baseUrl}/threads`, 'POST', {});
  if (thread.status !== 200) throw new Error(`creating the thread answered ${thread.status}: ${JSON.stringify(thread.body)}`);
  const threadId = (thread.body as { thread_id: string }).thread_id;
  const create = { assistant_id: 'agent', input, multitask_strategy: 'reject' };
  const wave = () => Promise.all(Array.from({ length: WAVE }, () => call(`${baseUrl}/threads/${threadId}/runs`, 'POST', create)));
  const first = await wave();
  const second = await wave();
  const accepted = [...first, ...second].filter((a) => a.status === 200).map(runIdOf) as string[];
  const finals: string[] = [];
  for (const runId of accepted) {
    await call(`${baseUrl}/threads/${threadId}/runs/${runId}/join`, 'GET');
    finals.push(((await call(`${baseUrl}/threads/${threadId}/runs/${runId}`, 'GET')).body as { status?: string }).status ?? 'none');
  }
  const list = await call(`${baseUrl}/threads/${threadId}/runs?limit=1000`, 'GET');
  const listed = (list.body as { run_id: string }[]).map((r) => r.run_id);
  return { threadId, first, second, accepted, listed, finals };
}

/** Answers counted by status, e.g. {"200": 1, "409": 49}. */
export function statusCounts(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
