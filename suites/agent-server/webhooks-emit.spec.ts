// §3, §6, §6a: which requests make the service notify the webhook, and when.
import { expect, test } from '../../harness/fixtures.ts';
import { precondition, preconditionArray } from '../../harness/checks/index.ts';
import type { ApiClient } from '../../harness/client.ts';
import type { Time, WebhookChannel } from '../../harness/fixtures.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { IN_PROGRESS, newThread, readRun, type Run } from './runs-steps.ts';
import { describeDelivery } from '../../harness/webhook-receiver.ts';
import { createCron, deleteCrons, describeCount, firstDelivery, untilNextRun, type Payload } from './webhooks-steps.ts';

const FINAL = ['success', 'error', 'timeout', 'interrupted'];

async function runsOf(agent: ApiClient, threadId: string): Promise<Run[]> {
  return preconditionArray(await agent.get<Run[]>(`/threads/${threadId}/runs`), 'list the runs of the thread');
}

/**
 * A run created on a new thread through `path` with the receiver's URL must bring exactly one
 * POST, with the run's id, sent once the run had reached its final status.
 */
async function expectNotifiedOnce(agent: ApiClient, hooks: WebhookChannel, path: (thread: string) => string, name: string): Promise<void> {
  const threadId = await newThread(agent);
  const res = await agent.post(path(threadId), { assistant_id: 'agent', input: { topic: name }, webhook: hooks.url(name) });
  precondition(res, `create a run with POST ${path(threadId)}`);
  const [run] = await runsOf(agent, threadId);
  expect(run, res.describe('the request created a run on the thread')).toBeDefined();
  const arrived = await hooks.waitFor(1, name);
  expect(arrived.length, `a POST to the webhook URL for run ${run.run_id}`).toBeGreaterThanOrEqual(1);
  expect(FINAL, describeDelivery(arrived[0], 'the run had finished when the notification came')).toContain((await readRun(agent, threadId, run.run_id)).status);
  await hooks.settle();
  const deliveries = await hooks.received(name);
  expect(
    deliveries.map((d) => d.method),
    describeCount(deliveries, 1, 'exactly one POST'),
  ).toEqual(['POST']);
  expect((deliveries[0].json as Payload | undefined)?.run_id, describeDelivery(deliveries[0], `the notification is for run ${run.run_id}`)).toBe(run.run_id);
}

/** A stateless run through `path` with the receiver's URL must bring exactly one POST for a finished run. */
async function expectStatelessNotifiedOnce(agent: ApiClient, hooks: WebhookChannel, path: string, name: string): Promise<void> {
  const res = await agent.post(path, { assistant_id: 'agent', input: { topic: name }, webhook: hooks.url(name) });
  precondition(res, `run POST ${path}`);
  await hooks.waitFor(1, name);
  await hooks.settle();
  const deliveries = await hooks.received(name);
  expect(
    deliveries.map((d) => d.method),
    describeCount(deliveries, 1, `exactly one POST to the webhook URL after POST ${path}`),
  ).toEqual(['POST']);
  const payload = deliveries[0].json as Payload | undefined;
  expect(typeof payload?.run_id, describeDelivery(deliveries[0], 'the notification names the run')).toBe('string');
  expect(FINAL, describeDelivery(deliveries[0], 'the notification reports a final status')).toContain(payload?.status);
}

test('create run with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-CREATE-RUN' }, async ({ agent, webhookReceiver }) => {
  await expectNotifiedOnce(agent, webhookReceiver, (t) => `/threads/${t}/runs`, 'create');
});

test('stream run with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-STREAM-RUN' }, async ({ agent, webhookReceiver }) => {
  await expectNotifiedOnce(agent, webhookReceiver, (t) => `/threads/${t}/runs/stream`, 'stream');
});

test('wait run with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-WAIT-RUN' }, async ({ agent, webhookReceiver }) => {
  await expectNotifiedOnce(agent, webhookReceiver, (t) => `/threads/${t}/runs/wait`, 'wait');
});

test('stateless stream with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-STATELESS-STREAM' }, async ({ agent, webhookReceiver }) => {
  await expectStatelessNotifiedOnce(agent, webhookReceiver, '/runs/stream', 'stateless-stream');
});

test('stateless wait with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-STATELESS-WAIT' }, async ({ agent, webhookReceiver }) => {
  await expectStatelessNotifiedOnce(agent, webhookReceiver, '/runs/wait', 'stateless-wait');
});

test('a completed run with a webhook URL brings one POST with a JSON body to that URL, query included', { tag: '@WEBHOOK-TRIGGER' }, async ({
  agent,
  webhookReceiver: hooks,
}) => {
  const threadId = await newThread(agent);
  const res = await agent.post(`/threads/${threadId}/runs`, {
    assistant_id: 'agent',
    input: { topic: 'trigger' },
    webhook: `${hooks.url('trigger')}?token=apc-secret&step=1`,
  });
  precondition(res, 'create a run with a webhook');
  const { delivery } = await firstDelivery(hooks, 'trigger', 'the run');
  await hooks.settle();
  const requests = await hooks.received('trigger');
  expect(requests, describeCount(requests, 1, 'one request')).toHaveLength(1);
  expect(delivery.method, describeDelivery(delivery, 'method')).toBe('POST');
  expect(delivery.query, describeDelivery(delivery, 'the URL as given, query included')).toEqual({ token: 'apc-secret', step: '1' });
  expect(() => JSON.parse(delivery.body), describeDelivery(delivery, 'a JSON body')).not.toThrow();
});

test("runs created without webhook send nothing, not even to an earlier run's URL", { tag: '@WEBHOOK-NO-URL-NO-POST' }, async ({
  agent,
  webhookReceiver: hooks,
}) => {
  const threadId = await newThread(agent);
  precondition(
    await agent.post(`/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: { topic: 'with' }, webhook: hooks.url('earlier') }),
    'run with a webhook',
  );
  await firstDelivery(hooks, 'earlier', 'the run with a webhook');
  for (const path of ['runs', 'runs/wait', 'runs/stream']) {
    // enqueue: the background run may still be in progress when the next one is created.
    const body = { assistant_id: 'agent', input: { topic: `without ${path}` }, multitask_strategy: 'enqueue' };
    precondition(await agent.post(`/threads/${threadId}/${path}`, body), `POST /threads/{id}/${path} without webhook`);
  }
  precondition(await agent.post('/runs/wait', { assistant_id: 'agent', input: { topic: 'stateless without' } }), 'a stateless run without webhook');
  // Only once every run has finished can the quiet that follows say none of them notified.
  const runs = await runsOf(agent, threadId);
  if (runs.length !== 4) skipForPrecondition(`precondition failed: the thread lists ${runs.length} runs, not the 4 made on it`);
  for (const run of runs) expect(FINAL, `run ${run.run_id} finished`).toContain((await readRun(agent, threadId, run.run_id)).status);
  await hooks.settle();
  const earlier = await hooks.received('earlier');
  expect(earlier, describeCount(earlier, 1, 'only the run created with the webhook notified')).toHaveLength(1);
});

test('nothing is sent while a run is in progress; its completion is the one notification', { tag: '@WEBHOOK-ONLY-EVENT' }, async ({
  agent,
  webhookReceiver: hooks,
  time,
}) => {
  const threadId = await newThread(agent);
  const res = await agent.post<Run>(`/threads/${threadId}/runs`, {
    assistant_id: 'agent',
    input: { topic: 'only', delay_ms: time.hold },
    webhook: hooks.url('only'),
  });
  precondition(res, 'create a run that stays in progress');
  // What arrived while part of the hold passed came during the run, as long as a read just after
  // finds it still in progress (on a virtual clock it stays so until told).
  await (time.virtual ? hooks.settle() : time.pass(time.hold / 2));
  const early = await hooks.received('only');
  const during = await readRun(agent, threadId, res.json.run_id);
  if (IN_PROGRESS.includes(during.status ?? ''))
    expect(
      early.map((d) => d.body.slice(0, 200)),
      describeCount(early, 0, 'no request while the run is in progress'),
    ).toEqual([]);
  else test.info().annotations.push({ type: 'note', description: `the run had ended (${during.status}) half-way through its hold: nothing to watch` });
  await time.pass(time.virtual ? time.hold : time.hold / 2);
  // A notification that never comes is the emission rule's failure; this one judges what else comes.
  await firstDelivery(hooks, 'only', 'the run');
  await hooks.settle();
  const run = await readRun(agent, threadId, res.json.run_id);
  const deliveries = await hooks.received('only');
  expect(
    deliveries.map((d) => `${d.method} ${(d.json as Payload | undefined)?.status}`),
    deliveries.length === 1 ? describeDelivery(deliveries[0], 'one POST, reporting the final status') : describeCount(deliveries, 1, 'one POST'),
  ).toEqual([`POST ${run.status}`]);
});

/**
 * A cron made with the receiver's URL must notify at the completion of each run it starts:
 * two on the virtual clock; on a real target, whose crons run once a minute, the first.
 */
async function expectCronNotifies(agent: ApiClient, hooks: WebhookChannel, time: Time, threadId: string | null, name: string): Promise<void> {
  const cron = await createCron(agent, threadId, { schedule: '* * * * *', input: { topic: name }, webhook: hooks.url(name) });
  try {
    const runs = time.virtual ? 2 : 1;
    time.allowFor(untilNextRun(cron), 'cron', 'webhook');
    if (time.virtual) await time.pass(untilNextRun(cron));
    await hooks.waitFor(1, name, time.virtual ? undefined : time.wall(untilNextRun(cron) + time.timeouts.cron + time.timeouts.webhook));
    if (time.virtual) await time.pass(60_000);
    const deliveries = await hooks.waitFor(runs, name);
    // A notification that names no run would count as one run however many came.
    const runIdOf = (d: (typeof deliveries)[number]) => (d.json as Payload | undefined)?.run_id;
    const named = [...new Set(deliveries.map(runIdOf))].filter((id) => typeof id === 'string' && id !== '');
    const unnamed = deliveries.find((d) => !named.includes(runIdOf(d) as string));
    const each = `one notification for each of the ${runs} run(s) the cron started, each naming its run`;
    expect(named.length, unnamed ? describeDelivery(unnamed, each) : describeCount(deliveries, runs, each)).toBe(runs);
    for (const d of deliveries) expect(FINAL, describeDelivery(d, 'each reports a finished run')).toContain((d.json as Payload | undefined)?.status);
    if (threadId) for (const d of deliveries) expect((d.json as Payload | undefined)?.thread_id, describeDelivery(d, "on the cron's thread")).toBe(threadId);
  } finally {
    await deleteCrons(agent, cron);
  }
}

test('create thread cron with webhook notifies at the completion of each run it starts', { tag: '@WEBHOOK-EMIT-THREAD-CRON' }, async ({
  agent,
  webhookReceiver,
  time,
}) => {
  await expectCronNotifies(agent, webhookReceiver, time, await newThread(agent), 'thread-cron');
});

test('create cron with webhook notifies at the completion of each run it starts', { tag: '@WEBHOOK-EMIT-CRON' }, async ({ agent, webhookReceiver, time }) => {
  await expectCronNotifies(agent, webhookReceiver, time, null, 'cron');
});

test.describe("a secret in the webhook URL's query string reaches the receiver verbatim", { tag: '@AUTH-WEBHOOK-SECRET-QUERY' }, () => {
  const query = '?token=s3cr%2Bt%3D%3D&apc=a%20b';
  // Each kind of operation of §6a: a server may build the delivery URL apart for each.
  for (const [operation, name, path] of [
    ['create run', 'secret', (thread: string) => `/threads/${thread}/runs`],
    ['stream run', 'secret-stream', (thread: string) => `/threads/${thread}/runs/stream`],
    ['stateless wait', 'secret-stateless', () => '/runs/wait'],
    ['stateless stream', 'secret-stateless-stream', () => '/runs/stream'],
  ] as const) {
    test(operation, async ({ agent, webhookReceiver: hooks }) => {
      const body = { assistant_id: 'agent', input: { topic: name }, webhook: `${hooks.url(name)}${query}` };
      precondition(await agent.post(path(await newThread(agent)), body), `run ${operation} with a webhook`);
      const { delivery } = await firstDelivery(hooks, name, operation);
      expect(delivery.url, describeDelivery(delivery, 'path and query as given')).toBe(`${new URL(hooks.url(name)).pathname}${query}`);
    });
  }
});
