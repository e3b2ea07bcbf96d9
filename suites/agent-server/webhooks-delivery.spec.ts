// §6 leaves delivery open (retries, signing, the receiver's answer); the reference retries a
// failing receiver, 3 attempts in all, and a failed delivery changes nothing else
// (the open-source agent server, langgraph-api webhook.py and http.py).
import { expect, test } from '../../harness/fixtures.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient } from '../../harness/client.ts';
import { describeDelivery, type Failure, type ReceivedRequest } from '../../harness/webhook-receiver.ts';
import type { Time, WebhookChannel } from '../../harness/fixtures.ts';
import { newThread, readRun, startRun } from './runs-steps.ts';
import { deliveredRun, describeCount, firstDelivery, type Payload, notifiedBy } from './webhooks-steps.ts';

/**
 * Attempts that arrived under each name once the target had time to try again: virtual time
 * far past every retry, or real time while waiting for `count` attempts, then the delivery
 * deadline for any more. The names are waited for together, as a real target retries them in parallel.
 */
async function attemptsAfterRetries(hooks: WebhookChannel, time: Time, counts: Record<string, number>): Promise<Record<string, number>> {
  const names = Object.keys(counts);
  // A run that notifies not at all fails the emission rules, not these.
  await Promise.all(names.map((name) => firstDelivery(hooks, name, `the run notifying ${name}`, notifiedBy('createRun'))));
  if (time.virtual) await time.pass(60_000);
  await Promise.all(names.map((name) => hooks.waitFor(counts[name], name)));
  await hooks.settle();
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, (await hooks.received(name)).length] as const)));
}

/** A run on a new thread that notifies the receiver under `name`. */
async function runNotifying(agent: ApiClient, hooks: WebhookChannel, name: string): Promise<{ threadId: string; runId: string }> {
  const threadId = await newThread(agent);
  return { threadId, runId: (await startRun(agent, threadId, { webhook: hooks.url(name) })).run_id };
}

test('a failing receiver is tried again, up to 3 attempts in all; one answering another 4xx is not', { tag: '@WEBHOOK-RETRY' }, async ({
  agent,
  webhookReceiver: hooks,
  time,
}) => {
  // [name, what the receiver does, how often, attempts to wait for, attempts allowed, in words]
  const cases: [string, Failure, number, number, (attempts: number) => boolean, string][] = [
    ['500-always', { status: 500 }, 10, 3, (n) => n >= 2 && n <= 3, 'retried, 2 or 3 attempts in all'],
    ['503-once', { status: 503 }, 1, 2, (n) => n === 2, 'one retry, which succeeds and ends it'],
    ['429-once', { status: 429 }, 1, 2, (n) => n === 2, 'one retry, which succeeds and ends it'],
    ['dropped-once', 'close', 1, 2, (n) => n === 2, 'one retry, which succeeds and ends it'],
    ['404', { status: 404 }, 1, 1, (n) => n === 1, 'one attempt, no retry'],
  ];
  const runIds: Record<string, string> = {};
  for (const [name, failure, times] of cases) {
    await hooks.failNext(times, failure, name);
    runIds[name] = (await runNotifying(agent, hooks, name)).runId;
  }
  const attempts = await attemptsAfterRetries(hooks, time, Object.fromEntries(cases.map(([name, , , count]) => [name, count])));
  const wrong = cases.filter(([name, , , , allowed]) => !allowed(attempts[name]));
  // The attempt that shows the first wrong count: one past those allowed, or the last, which no retry followed.
  let culprit: ReceivedRequest | undefined;
  if (wrong.length > 0) {
    const [name, , , most] = wrong[0];
    const got = await hooks.received(name);
    culprit = got[most] ?? got.at(-1);
  }
  const expected = 'receivers whose attempts were not as expected';
  expect(
    wrong.map(([name, , , , , said]) => `${name}: ${attempts[name]} attempt(s), expected ${said}`),
    culprit ? describeDelivery(culprit, expected) : expected,
  ).toEqual([]);
  // An attempt that names no run is WEBHOOK-PAYLOAD-RUN-ID's finding; one that names another run is this rule's.
  for (const [name] of cases) {
    const received = await hooks.received(name);
    const named = received.map((r) => (r.json as Payload | undefined)?.run_id ?? runIds[name]);
    const other = received.find((_, i) => named[i] !== runIds[name]);
    const each = `${name}: every attempt is for its run`;
    expect(named, other ? describeDelivery(other, each) : each).toEqual(named.map(() => runIds[name]));
  }
});

test('a receiver answering 2xx gets exactly one delivery per run completion', { tag: '@WEBHOOK-ONE-DELIVERY' }, async ({
  agent,
  webhookReceiver: hooks,
  time,
}) => {
  const first = await runNotifying(agent, hooks, 'one');
  const second = await runNotifying(agent, hooks, 'one');
  const arrived = (await hooks.waitFor(2, 'one')).map((r) => (r.json as Payload | undefined)?.run_id);
  // A run that notifies not at all fails the emission rules; this one counts what each run sends.
  if (!arrived.includes(first.runId) || !arrived.includes(second.runId))
    skipForPrecondition(`precondition failed: not both runs notified: ${arrived.join(', ')}`, notifiedBy('createRun'));
  if (time.virtual) await time.pass(60_000);
  await hooks.settle();
  const received = await hooks.received('one');
  const runIds = received.map((r) => (r.json as Payload | undefined)?.run_id);
  expect(runIds.sort(), describeCount(received, 2, 'one delivery for each of the two runs')).toEqual([first.runId, second.runId].sort());
});

test('a delivery that finally fails changes neither the run nor later runs', { tag: '@WEBHOOK-FAILURE-NO-EFFECT' }, async ({
  agent,
  webhookReceiver: hooks,
  time,
}) => {
  await hooks.failNext(10, { status: 500 }, 'failing');
  await hooks.failNext(10, 'close', 'dropping');
  const failing = await runNotifying(agent, hooks, 'failing');
  const dropping = await runNotifying(agent, hooks, 'dropping');
  await attemptsAfterRetries(hooks, time, { failing: 3, dropping: 3 });
  for (const run of [failing, dropping]) {
    expect((await readRun(agent, run.threadId, run.runId)).status, `run ${run.runId} keeps its final status`).toBe('success');
  }
  const later = await agent.post(`/threads/${failing.threadId}/runs/wait`, { assistant_id: 'agent', input: { topic: 'after the failed deliveries' } });
  expect(later.status, later.describe('a later run on the same thread executes')).toBe(200);
  const elsewhere = await deliveredRun(agent, hooks, 'later');
  expect(elsewhere.payload.status, describeDelivery(elsewhere.delivery, 'a later run elsewhere executes and notifies')).toBe('success');
});

test('how a failing receiver is retried', { tag: '@WEBHOOK-RETRY-BEHAVIOUR' }, async ({ agent, webhookReceiver: hooks, time, observe }) => {
  await hooks.failNext(10, { status: 500 }, 'behaviour');
  await runNotifying(agent, hooks, 'behaviour');
  await hooks.waitFor(1, 'behaviour');
  if (time.virtual) {
    // Step the virtual clock a second at a time and note when each attempt comes.
    const at = [0];
    for (let second = 1; second <= 10; second++) {
      await time.pass(1000);
      const arrived = await hooks.waitFor(at.length + 1, 'behaviour', 300);
      for (let i = at.length; i < arrived.length; i++) at.push(second);
    }
    observe('WEBHOOK-RETRY-BEHAVIOUR', `receiver answering 500: ${at.length} attempt(s), at +${at.join(' s, +')} s of virtual time`);
  } else {
    const started = Date.now();
    const arrived = await hooks.waitFor(10, 'behaviour');
    observe('WEBHOOK-RETRY-BEHAVIOUR', `receiver answering 500: ${arrived.length} attempt(s) within ${Math.round((Date.now() - started) / 1000)} s`);
  }
});

test('what a delivery carries besides its payload', { tag: '@WEBHOOK-SIGNING' }, async ({ agent, webhookReceiver, observe }) => {
  const { delivery } = await deliveredRun(agent, webhookReceiver, 'signing');
  const names = Object.keys(delivery.headers).sort();
  const signatureLike = names.filter((n) => /sign|hmac|digest|webhook-id|timestamp/i.test(n));
  observe('WEBHOOK-SIGNING', `request headers: ${names.join(', ')}; signature-like: ${signatureLike.join(', ') || 'none'}`);
});

test('what the service does with other receiver answers', { tag: '@WEBHOOK-RECEIVER-RESPONSE' }, async ({ agent, webhookReceiver: hooks, time, observe }) => {
  const statuses = [204, 302, 410];
  for (const status of statuses) {
    await hooks.failNext(1, { status }, `answer-${status}`);
    await runNotifying(agent, hooks, `answer-${status}`);
  }
  const attempts = await attemptsAfterRetries(hooks, time, Object.fromEntries(statuses.map((s) => [`answer-${s}`, 1])));
  observe('WEBHOOK-RECEIVER-RESPONSE', `attempts when the receiver answers ${statuses.map((s) => `${s}: ${attempts[`answer-${s}`]}`).join('; ')}`);
});
