// §3, §5, §6, §6a: which requests make the service notify the webhook, and when.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import { forRule, ruleNotJudged, skipForPrecondition } from '../../harness/checks/attribution.ts';
import type { ApiClient } from '../../harness/client.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { servesOperation } from '../../harness/target.ts';
import type { Time, WebhookChannel } from '../../harness/fixtures.ts';
import { IN_PROGRESS, newThread, type Run } from './runs-steps.ts';
import { describeDelivery, type ReceivedRequest } from '../../harness/webhook-receiver.ts';
import {
  deleteCrons,
  describeCount,
  firstDelivery,
  isPayload,
  untilNextRun,
  type EmittingOperation,
  notifiedBy,
  payloadOf,
  type Cron,
  webhookTakenBy,
} from './webhooks-steps.ts';
import { listedRuns } from './run-list-steps.ts';
import { contract } from '../../specs/contract.ts';

/** The statuses a run ends in; the spec shows only success and error, the others are the contract's reading of the reference. */
const ENDED: string[] = contract().runStatuses.ended;

/**
 * A run created on a new thread through `path` with the receiver's URL must bring exactly one
 * POST, sent once the run had reached its final status. The delivery is the rule's evidence. Where
 * the target lists and looks up runs (paths the spec does not show) and the listing shows the one run
 * of the thread, the run is read when the notification comes and must have ended, and the notification
 * must name it; else the notification's own status must be final.
 */
async function expectNotifiedOnce(
  agent: ApiClient,
  conformanceRun: ConformanceRun,
  hooks: WebhookChannel,
  path: (thread: string) => string,
  name: string,
): Promise<void> {
  const threadId = await newThread(agent);
  const res = await agent.post(path(threadId), { assistant_id: 'agent', input: { topic: name }, webhook: hooks.url(name) });
  expectStatus(res, '2xx');
  const listed = servesOperation(conformanceRun.target, 'agent-server', 'getRun') ? await listedRuns(agent, conformanceRun, threadId) : undefined;
  const run = listed?.runs.length === 1 ? listed.runs[0] : undefined;
  const arrived = await hooks.waitFor(1, name);
  expect(arrived.length, `a POST to the webhook URL for the run on thread ${threadId}`).toBeGreaterThanOrEqual(1);
  const read = run ? await agent.get<Run>(`/threads/${threadId}/runs/${run.run_id}`) : undefined;
  if (read?.status === 200) {
    expect(ENDED, describeDelivery(arrived[0], 'the run had finished when the notification came')).toContain(read.json.status);
  } else expect(ENDED, describeDelivery(arrived[0], 'the notification reports a final status')).toContain(payloadOf(arrived[0]).status);
  await hooks.settle();
  const deliveries = await hooks.received(name);
  expect(
    deliveries.map((d) => d.method),
    describeCount(deliveries, 1, 'exactly one POST'),
  ).toEqual(['POST']);
  // A notification that names no run is WEBHOOK-PAYLOAD-RUN-ID's finding; one that names another run is this rule's.
  const named = payloadOf(deliveries[0]).run_id;
  if (run && named !== undefined) expect(named, describeDelivery(deliveries[0], `the notification is for run ${run.run_id}`)).toBe(run.run_id);
}

/**
 * A stateless run through `path` with the receiver's URL must bring exactly one POST for a finished
 * run. That the operation takes the webhook is the rule of the operation's (webhookTakenBy).
 */
async function expectStatelessNotifiedOnce(
  agent: ApiClient,
  hooks: WebhookChannel,
  operation: 'streamStatelessRun' | 'waitStatelessRun',
  path: string,
  name: string,
): Promise<void> {
  const res = await agent.post(path, { assistant_id: 'agent', input: { topic: name }, webhook: hooks.url(name) });
  precondition(res, `run POST ${path} with a webhook`, webhookTakenBy(operation));
  await hooks.waitFor(1, name);
  await hooks.settle();
  const deliveries = await hooks.received(name);
  expect(
    deliveries.map((d) => d.method),
    describeCount(deliveries, 1, `exactly one POST to the webhook URL after POST ${path}`),
  ).toEqual(['POST']);
  // Which run it names is WEBHOOK-PAYLOAD-RUN-ID's to judge (a stateless run's id is known only from it).
  expect(ENDED, describeDelivery(deliveries[0], 'the notification reports a final status')).toContain(payloadOf(deliveries[0]).status);
}

test('create run with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-CREATE-RUN' }, async ({ agent, conformanceRun, webhookReceiver }) => {
  await expectNotifiedOnce(agent, conformanceRun, webhookReceiver, (t) => `/threads/${t}/runs`, 'create');
});

test('stream run with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-STREAM-RUN' }, async ({ agent, conformanceRun, webhookReceiver }) => {
  await expectNotifiedOnce(agent, conformanceRun, webhookReceiver, (t) => `/threads/${t}/runs/stream`, 'stream');
});

test('wait run with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-WAIT-RUN' }, async ({ agent, conformanceRun, webhookReceiver }) => {
  await expectNotifiedOnce(agent, conformanceRun, webhookReceiver, (t) => `/threads/${t}/runs/wait`, 'wait');
});

test('stateless stream with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-STATELESS-STREAM' }, async ({ agent, webhookReceiver }) => {
  await expectStatelessNotifiedOnce(agent, webhookReceiver, 'streamStatelessRun', '/runs/stream', 'stateless-stream');
});

test('stateless wait with webhook notifies once at run completion', { tag: '@WEBHOOK-EMIT-STATELESS-WAIT' }, async ({ agent, webhookReceiver }) => {
  await expectStatelessNotifiedOnce(agent, webhookReceiver, 'waitStatelessRun', '/runs/wait', 'stateless-wait');
});

/** Each operation of §6a, creating with `webhook` what notifies it: a run, or a cron that starts one every minute. */
const EMITTERS: { label: string; operation: EmittingOperation; path: (thread: string) => string; thread: boolean; cron: boolean }[] = [
  { label: 'create run', operation: 'createRun', path: (t) => `/threads/${t}/runs`, thread: true, cron: false },
  { label: 'stream run', operation: 'streamRun', path: (t) => `/threads/${t}/runs/stream`, thread: true, cron: false },
  { label: 'wait run', operation: 'waitRun', path: (t) => `/threads/${t}/runs/wait`, thread: true, cron: false },
  { label: 'stateless stream', operation: 'streamStatelessRun', path: () => '/runs/stream', thread: false, cron: false },
  { label: 'stateless wait', operation: 'waitStatelessRun', path: () => '/runs/wait', thread: false, cron: false },
  { label: 'create thread cron', operation: 'createThreadCron', path: (t) => `/threads/${t}/runs/crons`, thread: true, cron: true },
  { label: 'create cron', operation: 'createCron', path: () => '/runs/crons', thread: false, cron: true },
];

/** The crons' schedule: every minute. */
const EVERY_MINUTE = '* * * * *';

/** A secret in the query, with characters a server must not decode or re-encode on the way. */
const SECRET_QUERY = '?token=s3cr%2Bt%3D%3D&apc=a%20b';

// Three of each: one notifying a plain URL (the trigger), one whose run fails (§3: a run completes
// in a final status "for example success or error", and §6 notifies "when a run finishes"), and one
// with a secret in its URL's query (§5): a delivery that never comes to the last while the first came
// is the query's failure.
test.describe('a run created with a webhook URL notifies that URL once, with a JSON POST, query included', {
  tag: ['@WEBHOOK-TRIGGER', '@AUTH-WEBHOOK-SECRET-QUERY'],
}, () => {
  for (const emitter of EMITTERS) {
    test(emitter.label, async ({ agent, webhookReceiver: hooks, time }) => {
      const create = async (webhook: string, input: Record<string, unknown> = { topic: emitter.label }) => {
        const path = emitter.path(emitter.thread ? await newThread(agent) : '');
        const body = { assistant_id: 'agent', input, webhook };
        return agent.post<Cron>(path, emitter.cron ? { ...body, schedule: EVERY_MINUTE, metadata: agent.conformanceMark } : body);
      };
      const plain = await create(hooks.url('plain'));
      const failing = await create(hooks.url('failed'), { topic: emitter.label, fail: true });
      const secret = await create(`${hooks.url('secret')}${SECRET_QUERY}`);
      try {
        await forRule('WEBHOOK-TRIGGER', () => expectStatus(plain, '2xx'));
        const made = [plain, failing, secret].filter((res) => res.status >= 200 && res.status < 300);
        const deadline =
          emitter.cron && made.length > 0
            ? await untilCronsNotified(
                time,
                hooks,
                made.map((res) => res.json),
              )
            : hooks.deadline;
        const [toPlain, toFailed, toSecret] = await Promise.all(['plain', 'failed', 'secret'].map((name) => hooks.waitFor(1, name, deadline)));
        await hooks.settle();
        /** One POST with a JSON body for the run `first` names (a cron may start its next run meanwhile on a real target). */
        const expectOnePost = async (name: string, first: ReceivedRequest, what: string) => {
          const all = await hooks.received(name);
          const forRun = emitter.cron ? all.filter((d) => payloadOf(d).run_id === payloadOf(first).run_id) : all;
          expect(
            forRun.map((d) => d.method),
            forRun.length === 1 ? describeDelivery(forRun[0], `one POST for ${what}`) : describeCount(forRun, 1, `one POST for ${what}`),
          ).toEqual(['POST']);
          // The payload is a run record (§6): a JSON object.
          expect(isPayload(forRun[0]), describeDelivery(forRun[0], 'a JSON object body')).toBe(true);
        };
        await forRule('WEBHOOK-TRIGGER', async () => {
          expect(toPlain.length, `a request to the webhook URL once the run of ${emitter.label} completed`).toBeGreaterThan(0);
          await expectOnePost('plain', toPlain[0], 'the run');
        });
        // The failing run's creation is a step (a target may refuse the input, as long as it takes the plain one).
        if (failing.status >= 200 && failing.status < 300) {
          await forRule('WEBHOOK-TRIGGER', async () => {
            expect(toFailed.length, `a request to the webhook URL once the run of ${emitter.label} that failed finished (final status error)`).toBeGreaterThan(
              0,
            );
            await expectOnePost('failed', toFailed[0], 'the failed run');
          });
        }
        // Only beside a plain URL that was taken and notified does the fate of a URL with a query say anything about its query.
        if (plain.status >= 200 && plain.status < 300 && toPlain.length > 0) {
          await forRule('AUTH-WEBHOOK-SECRET-QUERY', () => {
            expectStatus(secret, '2xx');
            expect(toSecret.length, `a request to the webhook URL with a query once the run of ${emitter.label} completed`).toBeGreaterThan(0);
            expect(toSecret[0].url, describeDelivery(toSecret[0], 'path and query as given')).toBe(`${new URL(hooks.url('secret')).pathname}${SECRET_QUERY}`);
          });
        } else
          ruleNotJudged('AUTH-WEBHOOK-SECRET-QUERY', `precondition failed: no plain webhook URL was taken and notified for ${emitter.label}`, [
            'WEBHOOK-TRIGGER',
          ]);
      } finally {
        if (emitter.cron) await deleteCrons(agent, plain.json, failing.json, secret.json);
      }
    });
  }
});

/**
 * Lets the crons' first run come (on a virtual clock, at once) and answers how long, in wall ms,
 * its notification may then take: on a real target, until the schedule's next minute, the run
 * and its delivery.
 */
async function untilCronsNotified(time: Time, hooks: WebhookChannel, crons: Cron[]): Promise<number> {
  const until = Math.max(...crons.map((cron) => untilNextRun(cron, EVERY_MINUTE)));
  if (time.virtual) {
    await time.pass(until);
    return hooks.deadline;
  }
  return time.wall(until + time.timeouts.cron + time.timeouts.webhook);
}

test("runs created without webhook send nothing, not even to an earlier run's URL", { tag: '@WEBHOOK-NO-URL-NO-POST' }, async ({
  agent,
  webhookReceiver: hooks,
}) => {
  const threadId = await newThread(agent);
  precondition(
    await agent.post(`/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: { topic: 'with' }, webhook: hooks.url('earlier') }),
    'run with a webhook',
  );
  await firstDelivery(hooks, 'earlier', 'the run with a webhook', notifiedBy('waitRun'));
  // The runs without webhook are those the rule speaks of: each must be created. Only once every
  // one has finished can the quiet that follows say none of them notified: a wait and a stream have
  // once they answered, the background run once joined (§4.5).
  let background: string | undefined;
  for (const path of ['runs', 'runs/wait', 'runs/stream']) {
    // enqueue: the background run may still be in progress when the next one is created.
    const body = { assistant_id: 'agent', input: { topic: `without ${path}` }, multitask_strategy: 'enqueue' };
    const res = await agent.post<Run>(`/threads/${threadId}/${path}`, body);
    expectStatus(res, '2xx');
    if (path === 'runs') background = res.json.run_id;
  }
  expectStatus(await agent.post('/runs/wait', { assistant_id: 'agent', input: { topic: 'stateless without' } }), '2xx');
  precondition(await agent.get(`/threads/${threadId}/runs/${background}/join`), 'join the background run');
  await hooks.settle();
  const earlier = await hooks.received('earlier');
  expect(earlier, describeCount(earlier, 1, 'only the run created with the webhook notified')).toHaveLength(1);
});

// Whether the run is still in progress is read where the target looks runs up (a path the spec does
// not show); elsewhere only a virtual clock, which moves only when told, says so: the run holds for
// its delay.
test('nothing is sent while a run is in progress; its completion is the one notification', { tag: '@WEBHOOK-ONLY-EVENT' }, async ({
  agent,
  conformanceRun,
  webhookReceiver: hooks,
  time,
}) => {
  const threadId = await newThread(agent);
  const res = await agent.post<Run>(`/threads/${threadId}/runs`, {
    assistant_id: 'agent',
    input: { topic: 'only', delay_ms: time.hold },
    webhook: hooks.url('only'),
  });
  expectStatus(res, '2xx');
  const statusOf = async (): Promise<string | undefined> => {
    if (!servesOperation(conformanceRun.target, 'agent-server', 'getRun')) return undefined;
    const read = await agent.get<Run>(`/threads/${threadId}/runs/${res.json.run_id}`);
    return read.status === 200 ? read.json.status : undefined;
  };
  // What arrived while half the hold passed came during the run, as long as it was still in
  // progress just after. One sent then that arrives later is counted at the end.
  await time.pass(time.hold / 2);
  const early = await hooks.received('only');
  const during = await statusOf();
  if (during === undefined ? time.virtual : IN_PROGRESS.includes(during))
    expect(
      early.map((d) => d.body.slice(0, 200)),
      describeCount(early, 0, 'no request while the run is in progress'),
    ).toEqual([]);
  else test.info().annotations.push({ type: 'note', description: `the run had ended (${during ?? 'unknown'}) half-way through its hold: nothing to watch` });
  await time.pass(time.virtual ? time.hold : time.hold / 2);
  // A notification that never comes is the emission rules' failure; this one judges what else comes.
  await firstDelivery(hooks, 'only', 'the run', notifiedBy('createRun'));
  await hooks.settle();
  const final = await statusOf();
  const deliveries = await hooks.received('only');
  const one = deliveries.length === 1 ? describeDelivery(deliveries[0], 'one POST, reporting the final status') : describeCount(deliveries, 1, 'one POST');
  expect(
    deliveries.map((d) => d.method),
    one,
  ).toEqual(['POST']);
  if (final !== undefined) expect(payloadOf(deliveries[0]).status, one).toBe(final);
  else expect(ENDED, one).toContain(payloadOf(deliveries[0]).status);
});

/**
 * A cron made with the receiver's URL must notify at the completion of each run it starts:
 * two on the virtual clock; on a real target, whose crons run once a minute, the first. A cron not
 * made starts no run to notify: its creation is the cron rules' to judge (webhookTakenBy).
 */
async function expectCronNotifies(agent: ApiClient, hooks: WebhookChannel, time: Time, threadId: string | null, name: string): Promise<void> {
  const res = await agent.post<Cron>(threadId === null ? '/runs/crons' : `/threads/${threadId}/runs/crons`, {
    assistant_id: 'agent',
    schedule: EVERY_MINUTE,
    input: { topic: name },
    webhook: hooks.url(name),
    metadata: agent.conformanceMark,
  });
  try {
    precondition(res, 'create the cron with a webhook', webhookTakenBy(threadId === null ? 'createCron' : 'createThreadCron'));
    const runs = time.virtual ? 2 : 1;
    time.allowFor(untilNextRun(res.json, EVERY_MINUTE), 'cron', 'webhook');
    await hooks.waitFor(1, name, await untilCronsNotified(time, hooks, [res.json]));
    if (time.virtual) await time.pass(60_000);
    const deliveries = await hooks.waitFor(runs, name);
    // The runs are told apart by the run_id each notification names: one that names none cannot be
    // counted (WEBHOOK-PAYLOAD-RUN-ID's finding).
    const runIdOf = (d: (typeof deliveries)[number]) => payloadOf(d).run_id;
    const unnamed = deliveries.find((d) => typeof runIdOf(d) !== 'string' || runIdOf(d) === '');
    if (unnamed)
      skipForPrecondition(describeDelivery(unnamed, 'precondition failed: a notification names no run, so the runs cannot be counted'), [
        'WEBHOOK-PAYLOAD-RUN-ID',
      ]);
    const named = new Set(deliveries.map(runIdOf));
    const each = `one notification for each of the ${runs} run(s) the cron started`;
    expect(named.size, describeCount(deliveries, runs, each)).toBe(runs);
    for (const d of deliveries) expect(ENDED, describeDelivery(d, 'each reports a finished run')).toContain(payloadOf(d).status);
    if (threadId) for (const d of deliveries) expect(payloadOf(d).thread_id, describeDelivery(d, "on the cron's thread")).toBe(threadId);
  } finally {
    await deleteCrons(agent, res.json);
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
