// Steps the webhook, webhook-config and cron suites share. Each is a precondition: when it
// fails, the test is skipped naming the rules that explain it, so only the rule under test can fail.
import { contract } from '../../specs/contract.ts';
import { CronExpressionParser } from 'cron-parser';
import type { ApiClient } from '../../harness/client.ts';
import { expect, test } from '@playwright/test';
import { precondition, preconditionArray } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { WebhookChannel } from '../../harness/fixtures.ts';
import { describeDelivery, type ReceivedRequest } from '../../harness/webhook-receiver.ts';
import type { Cron, Run } from '../../specs/types/agent-server.ts';
import { newThread } from './runs-steps.ts';

export type Payload = Record<string, unknown>;

interface Delivered {
  threadId: string;
  runId: string;
  /** The run as its creation answered it. */
  created: Record<string, unknown>;
  delivery: ReceivedRequest;
  payload: Payload;
}

/** The operations of §6a that emit the notification when given `webhook`. */
export type EmittingOperation = 'createRun' | 'streamRun' | 'waitRun' | 'streamStatelessRun' | 'waitStatelessRun' | 'createCron' | 'createThreadCron';

/**
 * The rules whose failure explains that a run made by `operation` with a webhook sent no notification:
 * the trigger, and the rule that says this operation emits (the WEBHOOK-EMIT-* rule about it in specs/rules.yaml).
 */
export function notifiedBy(operation: EmittingOperation): string[] {
  const emits = contract().rules.filter((r) => r.id.startsWith('WEBHOOK-EMIT-') && r.operations?.includes(operation));
  return ['WEBHOOK-TRIGGER', ...emits.map((r) => r.id)];
}

/** The operations whose taking a body with `webhook` a rule of their own judges (§4.5: "accepts webhook"). */
const WEBHOOK_TAKEN_BY = {
  streamStatelessRun: 'STREAM-STATELESS',
  waitStatelessRun: 'RUN-WAIT-STATELESS',
  createCron: 'CRON-CREATE',
  createThreadCron: 'CRON-THREAD-CREATE',
} as const;

/**
 * The rule that judges that `operation` takes a body with `webhook`: a creation refused there is
 * that rule's finding, and the emission is then not judged. (Create, stream and wait run have no such
 * rule beside the emission rules, which judge their creation.)
 */
export function webhookTakenBy(operation: keyof typeof WEBHOOK_TAKEN_BY): string[] {
  return [WEBHOOK_TAKEN_BY[operation]];
}

/** Whether a delivery's body is a JSON object, as a run record is (§6; WEBHOOK-TRIGGER judges it). */
export function isPayload(delivery: ReceivedRequest): boolean {
  const json = delivery.json;
  return json !== null && typeof json === 'object' && !Array.isArray(json);
}

/** The payload of a delivery: its JSON object, or `{}`. */
export function payloadOf(delivery: ReceivedRequest): Payload {
  return isPayload(delivery) ? (delivery.json as Payload) : {};
}

/**
 * The first delivery under `name`, for tests of what a delivery carries or what else is sent: one
 * that never comes is the failure of the rules that make the run notify (`explainedBy`), so the
 * test is skipped naming them; one whose body is no JSON object is WEBHOOK-TRIGGER's, not that of
 * every payload field.
 */
export async function firstDelivery(
  hooks: WebhookChannel,
  name: string,
  what: string,
  explainedBy: string[],
): Promise<{ delivery: ReceivedRequest; payload: Payload }> {
  const [delivery] = await hooks.waitFor(1, name);
  if (!delivery) skipForPrecondition(`precondition failed: no webhook delivery arrived for ${what} at ${hooks.url(name)}`, explainedBy);
  if (!isPayload(delivery))
    skipForPrecondition(describeDelivery(delivery, `precondition failed: the delivery for ${what} is no JSON object`), ['WEBHOOK-TRIGGER']);
  return { delivery, payload: payloadOf(delivery) };
}

/** A background run on a new thread, created with a webhook, and the delivery its completion sent. */
export async function deliveredRun(agent: ApiClient, hooks: WebhookChannel, name: string, body: Record<string, unknown> = {}): Promise<Delivered> {
  const threadId = await newThread(agent);
  const res = await agent.post<Run>(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { topic: name }, webhook: hooks.url(name), ...body });
  precondition(res, 'create a run with a webhook');
  return { threadId, runId: res.json.run_id, created: res.json, ...(await firstDelivery(hooks, name, `run ${res.json.run_id}`, notifiedBy('createRun'))) };
}

/** A stateless wait run created with a webhook, and the delivery its completion sent. */
export async function deliveredStatelessRun(agent: ApiClient, hooks: WebhookChannel, name: string): Promise<{ delivery: ReceivedRequest; payload: Payload }> {
  const res = await agent.post('/runs/wait', { assistant_id: 'agent', input: { topic: name }, webhook: hooks.url(name) });
  precondition(res, 'run a stateless wait run with a webhook');
  return firstDelivery(hooks, name, 'the stateless run', notifiedBy('waitStatelessRun'));
}

/**
 * The message of an assertion on how many deliveries came: it names the first one past the
 * `expected` number, the delivery that should not have come, when there is one.
 */
export function describeCount(deliveries: ReceivedRequest[], expected: number, what: string): string {
  const extra = deliveries[expected];
  return extra ? describeDelivery(extra, `${what}; one too many`) : what;
}

/** RFC 3339 date-time, as JSON Schema's `date-time` format. */
export function isDateTime(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type { Cron };

/** Creates a cron (thread cron when `threadId` is given), marked as this run's; a failure skips the test. */
export async function createCron(agent: ApiClient, threadId: string | null, body: Record<string, unknown>): Promise<Cron> {
  const path = threadId === null ? '/runs/crons' : `/threads/${threadId}/runs/crons`;
  const res = await agent.post<Cron>(path, { assistant_id: 'agent', metadata: agent.conformanceMark, ...body });
  precondition(res, `create a cron with POST ${path}`);
  return res.json;
}

/**
 * Checks that a refused request made no cron on the thread (or, for stateless crons, none
 * marked `marker`), against a cron made now the same way: the search must find exactly that
 * one, so a search that finds nothing cannot pass for "none was made".
 */
export async function expectNoOtherCron(agent: ApiClient, threadId: string | null, marker: string, what: string): Promise<void> {
  const control = await createCron(agent, threadId, { schedule: '0 0 * * *', metadata: { ...agent.conformanceMark, apc_test: marker } });
  try {
    const res = await agent.post<Cron[]>('/runs/crons/search', threadId === null ? { limit: 1000 } : { thread_id: threadId });
    const all = preconditionArray(res, 'search the crons');
    const shown = all.find((c) => c.cron_id === control.cron_id);
    if (threadId === null && shown && shown.metadata?.apc_test !== marker) {
      // The cron answers are not shown (§4.5): a search whose crons carry no metadata cannot tell this test's stateless crons from others'.
      test.info().annotations.push({
        type: 'note',
        description: `the cron search answers no metadata, so whether ${what} made a cron is not judged: ${res.describe()}`,
      });
      return;
    }
    const found = all.filter((c) => threadId !== null || c.metadata?.apc_test === marker);
    if (!found.some((c) => c.cron_id === control.cron_id)) {
      skipForPrecondition(`precondition failed: the search misses the cron just made (${control.cron_id}), so cannot show no other was: ${res.describe()}`, [
        'CRON-SEARCH',
      ]);
    }
    expect(
      found.map((c) => c.cron_id),
      res.describe(`no cron was created by ${what}`),
    ).toEqual([control.cron_id]);
  } finally {
    await deleteCrons(agent, control);
  }
}

/** Deletes crons a test made, so they start no runs during later tests; failures are not this step's concern. */
export async function deleteCrons(agent: ApiClient, ...crons: (Cron | undefined)[]): Promise<void> {
  for (const cron of crons) if (cron?.cron_id) await agent.delete(`/runs/crons/${cron.cron_id}`);
}

/**
 * Virtual milliseconds from a cron's creation to just past the first time its schedule names
 * (UTC), read from the schedule rather than the cron's next_run_date: a wrong date is a
 * failure of the schedule rule only, not of every test that waits for a cron. The cron's answer
 * is not shown (§4.5: "Bodies of the cron endpoints: not shown"): where it names no created_at,
 * the `schedule` sent is read, and one whole period of it allowed (its first time comes within).
 */
export function untilNextRun(cron: Cron, schedule: string): number {
  if (isDateTime(cron.created_at)) {
    const created = Date.parse(cron.created_at);
    return (
      CronExpressionParser.parse(schedule, { currentDate: new Date(created), tz: 'UTC' })
        .next()
        .getTime() -
      created +
      1
    );
  }
  const times = CronExpressionParser.parse(schedule, { tz: 'UTC' });
  const first = times.next().getTime();
  return times.next().getTime() - first + 1;
}

/** Whether the cron's answer says when it was made, so that its schedule's times are known exactly (untilNextRun). */
export function madeAtKnown(cron: Cron): boolean {
  return isDateTime(cron.created_at);
}
