// §2.9, §6: what the webhook notification carries.
import { expect, test } from '../../harness/fixtures.ts';
import { forRule, ruleNotJudged, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { precondition } from '../../harness/checks/index.ts';
import type { ApiClient } from '../../harness/client.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { servesOperation } from '../../harness/target.ts';
import { newThread, readState, texts } from './runs-steps.ts';
import { describeDelivery, type ReceivedRequest } from '../../harness/webhook-receiver.ts';
import {
  deliveredRun,
  deliveredStatelessRun,
  firstDelivery,
  isDateTime,
  UUID,
  type EmittingOperation,
  notifiedBy,
  type Payload,
  payloadOf,
} from './webhooks-steps.ts';

/** The run as a lookup reads it, where the target serves one (a path the spec does not show) and it answers; else nothing. */
async function readIfServed(agent: ApiClient, conformanceRun: ConformanceRun, threadId: string, runId: string): Promise<Record<string, unknown>> {
  if (!servesOperation(conformanceRun.target, 'agent-server', 'getRun')) return {};
  const res = await agent.get<Record<string, unknown>>(`/threads/${threadId}/runs/${runId}`);
  return res.status === 200 && isObject(res.json) ? res.json : {};
}

/** The run fields of the payload table, and those a run holds unchanged from its creation on. */
const RUN_FIELDS = ['run_id', 'thread_id', 'assistant_id', 'status', 'created_at', 'updated_at', 'metadata', 'kwargs', 'multitask_strategy'];
const FIXED_AT_CREATION = ['run_id', 'thread_id', 'assistant_id', 'created_at', 'metadata', 'kwargs', 'multitask_strategy'];

// Each field is compared with the run as read, or, where the read lacks it, as its creation
// answered it: a read that answers little must not leave the payload compared with nothing. The
// read is a path the spec does not show: where the target does not serve it, or it does not
// answer, the creation's answer (§4.5: "Run including run_id") is what the payload is compared with.
test("the payload's run fields equal those of the run", { tag: '@WEBHOOK-PAYLOAD-RUN-RECORD' }, async ({ agent, conformanceRun, webhookReceiver }) => {
  const { threadId, runId, created, delivery, payload } = await deliveredRun(agent, webhookReceiver, 'record', { metadata: { apc: 'record' } });
  const read = await readIfServed(agent, conformanceRun, threadId, runId);
  const compared = RUN_FIELDS.flatMap((field) => {
    if (field in read) return [{ field, run: read[field], as: 'read' }];
    return FIXED_AT_CREATION.includes(field) && field in created ? [{ field, run: created[field], as: 'created' }] : [];
  });
  if (compared.every(({ field }) => field === 'run_id')) {
    skipForPrecondition(`precondition failed: the run, as read and as created, has no field but run_id to compare the payload with: ${JSON.stringify(read)}`, [
      'RUN-SHAPE',
    ]);
  }
  // A date-time is an instant: RFC 3339 writes one in more than one way (Z or +00:00, with or without a fraction).
  for (const { field, run, as } of compared) {
    const instants = isDateTime(payload[field]) && isDateTime(run);
    const [got, wanted] = instants ? [Date.parse(payload[field] as string), Date.parse(run as string)] : [payload[field], run];
    expect(got, describeDelivery(delivery, `payload.${field} against the run as ${as}: ${JSON.stringify(run)}`)).toEqual(wanted);
  }
});

test("run_id is a UUID string, the finished run's id", { tag: '@WEBHOOK-PAYLOAD-RUN-ID' }, async ({ agent, webhookReceiver }) => {
  const { runId, delivery, payload } = await deliveredRun(agent, webhookReceiver, 'run-id');
  expect(payload.run_id, describeDelivery(delivery, 'run_id')).toMatch(UUID);
  expect(payload.run_id, describeDelivery(delivery, 'run_id')).toBe(runId);
});

test("thread_id is a UUID string, the run's thread", { tag: '@WEBHOOK-PAYLOAD-THREAD-ID' }, async ({ agent, webhookReceiver }) => {
  const { threadId, delivery, payload } = await deliveredRun(agent, webhookReceiver, 'thread-id');
  expect(payload.thread_id, describeDelivery(delivery, 'thread_id')).toMatch(UUID);
  expect(payload.thread_id, describeDelivery(delivery, 'thread_id')).toBe(threadId);
});

test('assistant_id is a string', { tag: '@WEBHOOK-PAYLOAD-ASSISTANT-ID' }, async ({ agent, webhookReceiver }) => {
  const { delivery, payload } = await deliveredRun(agent, webhookReceiver, 'assistant-id');
  expect(typeof payload.assistant_id, describeDelivery(delivery, `assistant_id: ${JSON.stringify(payload.assistant_id)}`)).toBe('string');
  expect(payload.assistant_id, describeDelivery(delivery, 'assistant_id')).not.toBe('');
});

test("status is the run's final status: success for a run that succeeded, error for one that failed", { tag: '@WEBHOOK-PAYLOAD-STATUS' }, async ({
  agent,
  conformanceRun,
  webhookReceiver,
}) => {
  const ok = await deliveredRun(agent, webhookReceiver, 'status-ok');
  expect(ok.payload.status, describeDelivery(ok.delivery, 'status')).toBe('success');
  const read = await readIfServed(agent, conformanceRun, ok.threadId, ok.runId);
  if ('status' in read) expect(ok.payload.status, describeDelivery(ok.delivery, 'status as the run reads')).toBe(read.status);
  const failed = await deliveredRun(agent, webhookReceiver, 'status-failed', { input: { fail: true } });
  expect(failed.payload.status, describeDelivery(failed.delivery, 'status')).toBe('error');
});

for (const [rule, field] of [
  ['WEBHOOK-PAYLOAD-CREATED-AT', 'created_at'],
  ['WEBHOOK-PAYLOAD-UPDATED-AT', 'updated_at'],
  ['WEBHOOK-PAYLOAD-RUN-STARTED-AT', 'run_started_at'],
  ['WEBHOOK-PAYLOAD-WEBHOOK-SENT-AT', 'webhook_sent_at'],
] as const) {
  test(`${field} is a date-time string`, { tag: `@${rule}` }, async ({ agent, webhookReceiver }) => {
    const { delivery, payload } = await deliveredRun(agent, webhookReceiver, field);
    expect(isDateTime(payload[field]), describeDelivery(delivery, `${field}: ${JSON.stringify(payload[field])}`)).toBe(true);
  });
}

test('run_ended_at of a finished run is a date-time, not before run_started_at', { tag: '@WEBHOOK-PAYLOAD-RUN-ENDED-AT' }, async ({
  agent,
  webhookReceiver,
}) => {
  // A failed run has ended too: its end is not only the success path's to record.
  for (const [name, input] of [
    ['ended', { topic: 'ended' }],
    ['ended-failed', { fail: true }],
  ] as const) {
    const { delivery, payload } = await deliveredRun(agent, webhookReceiver, name, { input });
    expect(isDateTime(payload.run_ended_at), describeDelivery(delivery, `${name}: run_ended_at: ${JSON.stringify(payload.run_ended_at)}`)).toBe(true);
    if (isDateTime(payload.run_started_at)) {
      expect(
        Date.parse(payload.run_ended_at as string),
        describeDelivery(delivery, `${name}: run_ended_at is not before run_started_at`),
      ).toBeGreaterThanOrEqual(Date.parse(payload.run_started_at as string));
    }
  }
});

test("metadata is an object holding the run's custom metadata", { tag: '@WEBHOOK-PAYLOAD-METADATA' }, async ({ agent, webhookReceiver, testKey }) => {
  const metadata = { apc_test: testKey, nested: { list: [1, 'two'], flag: true } };
  const { delivery, payload } = await deliveredRun(agent, webhookReceiver, 'metadata', { metadata });
  expect(payload.metadata, describeDelivery(delivery, 'metadata')).toMatchObject(metadata);
});

test('kwargs is an object holding the run input and configuration', { tag: '@WEBHOOK-PAYLOAD-KWARGS' }, async ({ agent, webhookReceiver }) => {
  const input = { topic: 'kwargs', extra: { n: 1 } };
  const { delivery, payload } = await deliveredRun(agent, webhookReceiver, 'kwargs', { input, config: { configurable: { apc_setting: 'on' } } });
  const kwargs = payload.kwargs as { input?: unknown; config?: { configurable?: Record<string, unknown> } };
  expect(kwargs && typeof kwargs === 'object', describeDelivery(delivery, 'kwargs is an object')).toBe(true);
  expect(kwargs.input, describeDelivery(delivery, 'kwargs.input is the run input')).toEqual(input);
  expect(kwargs.config?.configurable?.apc_setting, describeDelivery(delivery, 'kwargs.config holds the run configuration')).toBe('on');
});

test("a stateful run's values are the state values of the thread's latest checkpoint", { tag: '@WEBHOOK-PAYLOAD-VALUES' }, async ({
  agent,
  webhookReceiver,
}) => {
  const { threadId, delivery, payload } = await deliveredRun(agent, webhookReceiver, 'values', { input: { topic: 'values' } });
  expect(payload.values, describeDelivery(delivery, 'values as GET /threads/{id}/state reads them')).toEqual((await readState(agent, threadId)).values);
  // Equal and empty would prove nothing: the run wrote its answer.
  const values = payload.values as Record<string, unknown>;
  expect(texts({ values }), describeDelivery(delivery, "the values hold the run's answer")).toContain('echo: values');
});

test('a stateless run has no values', { tag: '@WEBHOOK-PAYLOAD-VALUES-STATELESS' }, async ({ agent, webhookReceiver }) => {
  const { delivery, payload } = await deliveredStatelessRun(agent, webhookReceiver, 'stateless');
  expect(Object.keys(payload), describeDelivery(delivery, 'no values key')).not.toContain('values');
});

test('multitask_strategy is the strategy the run was created with', { tag: '@WEBHOOK-PAYLOAD-MULTITASK-STRATEGY' }, async ({ agent, webhookReceiver }) => {
  for (const strategy of ['reject', 'enqueue']) {
    const { delivery, payload } = await deliveredRun(agent, webhookReceiver, `strategy-${strategy}`, { multitask_strategy: strategy });
    expect(payload.multitask_strategy, describeDelivery(delivery, 'multitask_strategy')).toBe(strategy);
  }
});

test('a failed run reports error as {error, message}, both strings', { tag: '@WEBHOOK-PAYLOAD-ERROR' }, async ({ agent, webhookReceiver }) => {
  const { delivery, payload } = await deliveredRun(agent, webhookReceiver, 'error', { input: { fail: true } });
  expectErrorObject(delivery, payload);
});

test('a run that did not fail has no error, or a null one', { tag: '@WEBHOOK-PAYLOAD-ERROR-ABSENT' }, async ({ agent, webhookReceiver }) => {
  const { delivery, payload } = await deliveredRun(agent, webhookReceiver, 'no-error');
  expect(payload.error ?? null, describeDelivery(delivery, 'error')).toBeNull();
});

test('the notification is sent with Content-Type application/json', { tag: '@WEBHOOK-CONTENT-TYPE' }, async ({ agent, webhookReceiver }) => {
  const { delivery } = await deliveredRun(agent, webhookReceiver, 'content-type');
  expect(delivery.headers['content-type'] ?? '(none)', describeDelivery(delivery, "the notification's Content-Type")).toMatch(/^application\/json\b/i);
});

// The tests above judge the notification of a run made by POST /threads/{thread_id}/runs. Every
// other operation of §6a sends the same notification, whose fields a server may build on another
// code path (a wait, a stream, a stateless run): each is judged here, field by field.
const EMITTERS: [string, EmittingOperation, ((thread: string) => string) | string][] = [
  ['wait run', 'waitRun', (thread) => `/threads/${thread}/runs/wait`],
  ['stream run', 'streamRun', (thread) => `/threads/${thread}/runs/stream`],
  ['stateless wait', 'waitStatelessRun', '/runs/wait'],
  ['stateless stream', 'streamStatelessRun', '/runs/stream'],
];
const PAYLOAD_RULES = [
  'WEBHOOK-PAYLOAD-RUN-ID',
  'WEBHOOK-PAYLOAD-THREAD-ID',
  'WEBHOOK-PAYLOAD-ASSISTANT-ID',
  'WEBHOOK-PAYLOAD-STATUS',
  'WEBHOOK-PAYLOAD-CREATED-AT',
  'WEBHOOK-PAYLOAD-UPDATED-AT',
  'WEBHOOK-PAYLOAD-RUN-STARTED-AT',
  'WEBHOOK-PAYLOAD-RUN-ENDED-AT',
  'WEBHOOK-PAYLOAD-WEBHOOK-SENT-AT',
  'WEBHOOK-PAYLOAD-METADATA',
  'WEBHOOK-PAYLOAD-KWARGS',
  'WEBHOOK-PAYLOAD-VALUES',
  'WEBHOOK-PAYLOAD-VALUES-STATELESS',
  'WEBHOOK-PAYLOAD-MULTITASK-STRATEGY',
  'WEBHOOK-PAYLOAD-ERROR',
  'WEBHOOK-PAYLOAD-ERROR-ABSENT',
];
test.describe('every emitting operation notifies with the payload of §6', { tag: PAYLOAD_RULES.map((r) => `@${r}`) }, () => {
  for (const [operation, operationId, path] of EMITTERS) {
    test(operation, async ({ agent, webhookReceiver: hooks }) => {
      const name = operation.replace(/ /g, '-');
      const thread = typeof path === 'string' ? undefined : await newThread(agent);
      const input = { topic: name };
      const res = await agent.post(thread ? (path as (t: string) => string)(thread) : (path as string), {
        assistant_id: 'agent',
        input,
        webhook: hooks.url(name),
      });
      precondition(res, `run POST ${res.path} with a webhook`);
      const { delivery, payload } = await firstDelivery(hooks, name, operation, notifiedBy(operationId));
      await forRule('WEBHOOK-PAYLOAD-RUN-ID', () => expect(payload.run_id, describeDelivery(delivery, 'run_id')).toMatch(UUID));
      await forRule('WEBHOOK-PAYLOAD-THREAD-ID', () =>
        expect(payload.thread_id, describeDelivery(delivery, 'thread_id')).toMatch(thread ? new RegExp(`^${thread}$`) : UUID),
      );
      await forRule('WEBHOOK-PAYLOAD-ASSISTANT-ID', () => expect(typeof payload.assistant_id, describeDelivery(delivery, 'assistant_id')).toBe('string'));
      await forRule('WEBHOOK-PAYLOAD-STATUS', () => expect(payload.status, describeDelivery(delivery, 'status of a run that succeeded')).toBe('success'));
      for (const [rule, field] of [
        ['WEBHOOK-PAYLOAD-CREATED-AT', 'created_at'],
        ['WEBHOOK-PAYLOAD-UPDATED-AT', 'updated_at'],
        ['WEBHOOK-PAYLOAD-RUN-STARTED-AT', 'run_started_at'],
        ['WEBHOOK-PAYLOAD-RUN-ENDED-AT', 'run_ended_at'],
        ['WEBHOOK-PAYLOAD-WEBHOOK-SENT-AT', 'webhook_sent_at'],
      ]) {
        await forRule(rule, () => expect(isDateTime(payload[field]), describeDelivery(delivery, `${field}: ${JSON.stringify(payload[field])}`)).toBe(true));
      }
      await forRule('WEBHOOK-PAYLOAD-METADATA', () =>
        expect(isObject(payload.metadata), describeDelivery(delivery, `metadata: ${JSON.stringify(payload.metadata)}`)).toBe(true),
      );
      await forRule('WEBHOOK-PAYLOAD-KWARGS', () =>
        expect((payload.kwargs as { input?: unknown } | undefined)?.input, describeDelivery(delivery, 'kwargs.input is the run input')).toEqual(input),
      );
      if (thread) {
        // Judged against a state that holds the run's answer: one that does not is the state rules' failure.
        const state = await agent.get<{ values?: Record<string, unknown> }>(`/threads/${thread}/state`);
        if (state.status === 200 && texts({ values: state.json.values ?? {} }).includes(`echo: ${name}`)) {
          await forRule('WEBHOOK-PAYLOAD-VALUES', () =>
            expect(payload.values, describeDelivery(delivery, 'values as the thread state reads them')).toEqual(state.json.values),
          );
        } else {
          ruleNotJudged('WEBHOOK-PAYLOAD-VALUES', `precondition failed: the thread state holds no answer of the run: ${state.describe()}`, [
            'RUN-WRITES-THREAD-STATE',
            'THREAD-STATE',
          ]);
        }
        await forRule('WEBHOOK-PAYLOAD-MULTITASK-STRATEGY', () =>
          expect(typeof payload.multitask_strategy, describeDelivery(delivery, 'multitask_strategy')).toBe('string'),
        );
      } else {
        await forRule('WEBHOOK-PAYLOAD-VALUES-STATELESS', () =>
          expect(Object.keys(payload), describeDelivery(delivery, 'no values key')).not.toContain('values'),
        );
      }
      // A payload that reports the run failed may carry its error: that status is WEBHOOK-PAYLOAD-STATUS's finding.
      if (payload.status !== 'error') {
        await forRule('WEBHOOK-PAYLOAD-ERROR-ABSENT', () =>
          expect(payload.error ?? null, describeDelivery(delivery, 'error of a run that succeeded')).toBeNull(),
        );
      } else
        ruleNotJudged('WEBHOOK-PAYLOAD-ERROR-ABSENT', 'precondition failed: the payload of a run that succeeded reports status error', [
          'WEBHOOK-PAYLOAD-STATUS',
        ]);
      // A run whose graph fails, through the same operation: its final status is error (§3), and the
      // payload reports it through error (§7). Its answer is not judged (the formats of wait and stream
      // are not shown), nor a notification that never comes (WEBHOOK-TRIGGER runs failing runs too).
      const failedName = `${name}-failed`;
      const failedThread = thread ? await newThread(agent) : undefined;
      await agent.post(failedThread ? (path as (t: string) => string)(failedThread) : (path as string), {
        assistant_id: 'agent',
        input: { topic: failedName, fail: true },
        webhook: hooks.url(failedName),
      });
      const [failed] = await hooks.waitFor(1, failedName);
      if (failed && isObject(failed.json)) {
        const reported = payloadOf(failed);
        await forRule('WEBHOOK-PAYLOAD-STATUS', () => expect(reported.status, describeDelivery(failed, 'status of a run whose graph failed')).toBe('error'));
        await forRule('WEBHOOK-PAYLOAD-ERROR', () => expectErrorObject(failed, reported));
      } else {
        for (const rule of ['WEBHOOK-PAYLOAD-STATUS', 'WEBHOOK-PAYLOAD-ERROR'])
          ruleNotJudged(rule, `precondition failed: no notification with a JSON body came for the run whose graph failed (${failedName})`, ['WEBHOOK-TRIGGER']);
      }
    });
  }
});

/** §6, §7: a failed run's payload holds error as an object of two strings, error (its type) and message. */
function expectErrorObject(delivery: ReceivedRequest, payload: Payload): void {
  const error = payload.error as { error?: unknown; message?: unknown } | null | undefined;
  expect(error && typeof error === 'object', describeDelivery(delivery, `error is an object: ${JSON.stringify(payload.error)}`)).toBe(true);
  expect(typeof error?.error, describeDelivery(delivery, 'error.error, the error type')).toBe('string');
  expect(typeof error?.message, describeDelivery(delivery, 'error.message, the detail')).toBe('string');
}

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
