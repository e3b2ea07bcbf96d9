// §6 leaves delivery open (retries, signing, the receiver's answer); the reference retries a
// failing receiver, 3 attempts in all, and a failed delivery changes nothing else
// (platform-facts §2.3).
import { expect, test } from '../fixtures.ts';
import { precondition } from '../checks/index.ts';
import type { Failure } from '../../fixtures/webhook-receiver.ts';
import type { Time, WebhookChannel } from '../fixtures.ts';
import { newThread, readRun, startRun } from './runs.ts';
import { deliveredRun, type Payload } from './webhooks-steps.ts';

/** Lets the target try again: virtual time far past every retry, or real time while waiting for `count` attempts. */
async function attemptsAfterRetries(hooks: WebhookChannel, time: Time, name: string, count: number): Promise<number> {
  await hooks.waitFor(1, name);
  if (time.virtual) await time.pass(60_000);
  await hooks.waitFor(count, name);
  await hooks.settle();
  if (time.virtual) {
    await time.pass(60_000);
    await hooks.settle();
  }
  return hooks.received(name).length;
}

test.describe('a failing receiver is tried again, up to 3 attempts in all; another 4xx is not', { tag: '@WEBHOOK-RETRY' }, () => {
  // [what the receiver does, how often, attempts to wait for, attempts allowed, in words]
  const cases: [string, Failure, number, number, (attempts: number) => boolean, string][] = [
    ['a 500 on every attempt', { status: 500 }, 10, 3, (n) => n >= 2 && n <= 3, 'retried, 2 or 3 attempts in all'],
    ['a 503 once', { status: 503 }, 1, 2, (n) => n === 2, 'one retry, which succeeds and ends it'],
    ['a 429 once', { status: 429 }, 1, 2, (n) => n === 2, 'one retry, which succeeds and ends it'],
    ['a dropped connection once', 'close', 1, 2, (n) => n === 2, 'one retry, which succeeds and ends it'],
    ['a 404', { status: 404 }, 1, 1, (n) => n === 1, 'one attempt, no retry'],
  ];
  for (const [what, failure, times, waitFor, expected, said] of cases) {
    test(`${what}: ${said}`, async ({ agent, webhookReceiver: hooks, time }) => {
      test.slow(!time.virtual, 'retries take real seconds on a real target');
      hooks.failNext(times, failure, 'retry');
      const threadId = await newThread(agent);
      await startRun(agent, threadId, { webhook: hooks.url('retry') });
      const attempts = await attemptsAfterRetries(hooks, time, 'retry', waitFor);
      expect(expected(attempts), `${attempts} attempt(s); expected ${said}`).toBe(true);
      const runIds = new Set(hooks.received('retry').map((r) => (r.json as Payload | undefined)?.run_id));
      expect(runIds.size, 'every attempt is for the same run').toBe(1);
    });
  }
});

test('a receiver answering 2xx gets exactly one delivery per run completion', { tag: '@WEBHOOK-ONE-DELIVERY' }, async ({ agent, webhookReceiver: hooks, time }) => {
  const threadId = await newThread(agent);
  const first = await startRun(agent, threadId, { webhook: hooks.url('one') });
  const second = await startRun(agent, threadId, { webhook: hooks.url('one') });
  await hooks.waitFor(2, 'one');
  if (time.virtual) await time.pass(60_000);
  await hooks.settle();
  const runIds = hooks.received('one').map((r) => (r.json as Payload | undefined)?.run_id);
  expect(runIds.sort(), 'one delivery for each of the two runs').toEqual([first.run_id, second.run_id].sort());
});

test('a delivery that finally fails changes neither the run nor later runs', { tag: '@WEBHOOK-FAILURE-NO-EFFECT' }, async ({ agent, webhookReceiver: hooks, time }) => {
  test.slow(!time.virtual, 'retries take real seconds on a real target');
  hooks.failNext(10, { status: 500 }, 'failing');
  hooks.failNext(10, 'close', 'dropping');
  const threadId = await newThread(agent);
  const failing = await startRun(agent, threadId, { webhook: hooks.url('failing') });
  const dropping = await startRun(agent, threadId, { webhook: hooks.url('dropping') });
  await attemptsAfterRetries(hooks, time, 'failing', 3);
  await attemptsAfterRetries(hooks, time, 'dropping', 3);
  for (const run of [failing, dropping]) {
    expect((await readRun(agent, threadId, run.run_id)).status, `run ${run.run_id} keeps its final status`).toBe('success');
  }
  const later = await agent.post(`/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: { topic: 'after the failed deliveries' } });
  expect(later.status, later.describe('a later run on the same thread executes')).toBe(200);
  const elsewhere = await deliveredRun(agent, hooks, 'later');
  expect(elsewhere.payload.status, 'a later run elsewhere executes and notifies').toBe('success');
});

test('how a failing receiver is retried', { tag: '@WEBHOOK-RETRY-BEHAVIOUR' }, async ({ agent, webhookReceiver: hooks, time, observe }) => {
  test.slow(!time.virtual, 'retries take real seconds on a real target');
  hooks.failNext(10, { status: 500 }, 'behaviour');
  const threadId = await newThread(agent);
  await startRun(agent, threadId, { webhook: hooks.url('behaviour') });
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
  const seen: string[] = [];
  for (const status of [204, 302, 410]) {
    hooks.failNext(1, { status }, `answer-${status}`);
    const threadId = await newThread(agent);
    const res = await agent.post(`/threads/${threadId}/runs`, { assistant_id: 'agent', input: { topic: 'answers' }, webhook: hooks.url(`answer-${status}`) });
    precondition(res, 'create a run with a webhook');
    seen.push(`${status}: ${await attemptsAfterRetries(hooks, time, `answer-${status}`, 1)} attempt(s)`);
  }
  observe('WEBHOOK-RECEIVER-RESPONSE', `attempts when the receiver answers ${seen.join('; ')}`);
});
