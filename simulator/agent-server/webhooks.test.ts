// Webhook notifications without the HTTP front: the payload of §6, delivery to a real
// receiver, retries on the virtual clock, and the deployment configuration's effects.
import { expect, test } from '@playwright/test';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { WebhookReceiver } from '../../harness/webhook-receiver.ts';
import { VirtualClock } from '../clock.ts';
import { resolveDeploymentConfig } from '../deployment-config.ts';
import { IdGenerator } from '../ids.ts';
import { createLog } from '../log.ts';
import { AgentServer, type AgentServerOptions } from './agent-server.ts';

const PAYLOAD_FIELDS = [
  'run_id',
  'thread_id',
  'assistant_id',
  'status',
  'created_at',
  'updated_at',
  'run_started_at',
  'run_ended_at',
  'webhook_sent_at',
  'metadata',
  'kwargs',
  'values',
  'multitask_strategy',
  'error',
];

let receiver: WebhookReceiver;
test.beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
test.afterEach(async () => {
  await receiver.close();
});

function server(options: AgentServerOptions = {}) {
  const clock = new VirtualClock();
  const logs: string[] = [];
  // Every level, both streams in one list: the tests check what goes out at which level.
  const log = createLog('debug', { stdout: (line) => logs.push(line), stderr: (line) => logs.push(line) });
  const agent = new AgentServer({ clock, ids: new IdGenerator('webhooks') }, {}, { log, ...options });
  const thread = agent.threads.create({ metadata: { graph_id: 'agent' } }).thread_id;
  return { clock, agent, thread, logs };
}

type Payload = Record<string, unknown>;

test('a finished stateful run is POSTed once as JSON with exactly the fields of §6', async () => {
  const { agent, thread } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', input: { topic: 'hook' }, metadata: { m: 1 }, webhook: `${receiver.url}/h?token=t` });
  await agent.webhooks.idle();
  const [delivery, ...more] = receiver.received();
  expect(more).toEqual([]);
  expect(delivery).toMatchObject({ method: 'POST', path: '/h', query: { token: 't' } });
  expect(delivery.headers['content-type']).toBe('application/json');
  const payload = delivery.json as Payload;
  expect(Object.keys(payload)).toEqual(PAYLOAD_FIELDS.filter((f) => f !== 'error'));
  expect(payload).toMatchObject({ run_id: run.run_id, thread_id: thread, status: 'success', metadata: { m: 1 }, multitask_strategy: 'enqueue' });
  expect(payload.values).toEqual(agent.threads.state(thread).values);
  expect((payload.kwargs as Payload).input).toEqual({ topic: 'hook' });
  expect(payload.run_ended_at).toBe(run.run_ended_at);
});

test('a failed run carries error {error, message}; a stateless run has no values', async () => {
  const { agent, thread } = server();
  agent.runs.create(thread, { assistant_id: 'agent', input: { fail: true }, webhook: `${receiver.url}/failed` });
  agent.runs.createStateless({ assistant_id: 'agent', webhook: `${receiver.url}/stateless` });
  await agent.webhooks.idle();
  const failed = receiver.received('/failed')[0].json as Payload;
  expect(failed.status).toBe('error');
  expect(failed.error).toEqual({ error: 'SimulatedNodeError', message: expect.stringContaining('failed') });
  const stateless = receiver.received('/stateless')[0].json as Payload;
  expect(stateless.status).toBe('success');
  expect('values' in stateless).toBe(false);
  expect('error' in stateless).toBe(false);
});

test("a run without webhook sends nothing, and later runs do not reuse an earlier run's URL", async () => {
  const { agent, thread } = server();
  agent.runs.create(thread, { assistant_id: 'agent', webhook: receiver.url });
  agent.runs.create(thread, { assistant_id: 'agent' });
  await agent.webhooks.idle();
  expect(receiver.received()).toHaveLength(1);
});

test('5xx, 429 and dropped connections are retried after 1 s and 2 s of virtual time, 3 attempts in all', async () => {
  for (const failure of [{ status: 500 }, { status: 429 }, 'close'] as const) {
    const { clock, agent, thread } = server();
    const path = `/retry-${typeof failure === 'string' ? failure : failure.status}`;
    receiver.failNext(10, failure, path);
    agent.runs.create(thread, { assistant_id: 'agent', webhook: `${receiver.url}${path}` });
    const counts: number[] = [];
    for (const step of [0, 999, 1, 1999, 1, 60_000]) {
      clock.advance(step);
      await agent.webhooks.idle();
      counts.push(receiver.received(path).length);
    }
    expect(counts, path).toEqual([1, 1, 2, 2, 3, 3]);
    const bodies = new Set(receiver.received(path).map((r) => r.body));
    expect(bodies.size, 'every attempt sends the same payload').toBe(1);
  }
});

test('a retry that succeeds ends the delivery; another 4xx is not retried', async () => {
  const { clock, agent, thread, logs } = server();
  receiver.failNext(1, { status: 503 }, '/once');
  receiver.failNext(1, { status: 404 }, '/gone');
  agent.runs.create(thread, { assistant_id: 'agent', webhook: `${receiver.url}/once` });
  agent.runs.create(thread, { assistant_id: 'agent', webhook: `${receiver.url}/gone` });
  await agent.webhooks.idle();
  clock.advance(60_000);
  await agent.webhooks.idle();
  expect(receiver.received('/once').map((r) => r.answered)).toEqual([503, 200]);
  expect(receiver.received('/gone').map((r) => r.answered)).toEqual([404]);
  // The receiver's refusals are info and debug, never errors: the platform behaves as documented.
  expect([...logs].sort()).toEqual([
    expect.stringMatching(/^\[simulator\] debug: webhook to http:\/\/127\.0\.0\.1:\d+\/once: attempt 1 failed \(status 503\); attempt 2 due in 1000 ms$/),
    expect.stringMatching(/^\[simulator\] info: webhook to http:\/\/127\.0\.0\.1:\d+\/gone failed after 1 attempt: status 404$/),
  ]);
});

test('an attempt overdue when the previous one fails goes at once', async () => {
  const { clock, agent, thread } = server();
  receiver.failNext(2, { status: 500 });
  agent.runs.create(thread, { assistant_id: 'agent', webhook: receiver.url });
  // The clock passes every due time before the first answer arrives.
  clock.advance(60_000);
  await agent.webhooks.idle();
  expect(receiver.received().map((r) => r.answered)).toEqual([500, 500, 200]);
});

test('a refused connection is retried, then logged without the query; the run and the server are unaffected', async () => {
  const port = await closedPort();
  const { clock, agent, thread, logs } = server();
  const run = agent.runs.create(thread, { assistant_id: 'agent', webhook: `http://127.0.0.1:${port}/x?token=secret` });
  for (let i = 0; i < 3; i++) {
    await agent.webhooks.idle();
    clock.advance(10_000);
  }
  await agent.webhooks.idle();
  expect(logs).toEqual([
    expect.stringMatching(new RegExp(`^\\[simulator\\] debug: webhook to http://127.0.0.1:${port}/x: attempt 1 failed \\(.+\\); attempt 2 due in \\d+ ms$`)),
    expect.stringMatching(new RegExp(`^\\[simulator\\] debug: webhook to http://127.0.0.1:${port}/x: attempt 2 failed`)),
    expect.stringMatching(new RegExp(`^\\[simulator\\] info: webhook to http://127.0.0.1:${port}/x failed after 3 attempts`)),
  ]);
  expect(logs.join('\n')).not.toContain('secret');
  expect(run.status).toBe('success');
  expect(agent.runs.create(thread, { assistant_id: 'agent' }).status).toBe('success');
});

test('reset cancels retries still waiting on the virtual clock', async () => {
  const { clock, agent, thread } = server();
  receiver.failNext(10, { status: 500 });
  agent.runs.create(thread, { assistant_id: 'agent', webhook: receiver.url });
  await agent.webhooks.idle();
  agent.reset();
  clock.advance(60_000);
  await agent.webhooks.idle();
  expect(receiver.received()).toHaveLength(1);
});

test('configured headers are sent, with environment references resolved', async () => {
  const deploymentConfig = resolveDeploymentConfig(
    { webhooks: { headers: { 'X-Static': 'one', Authorization: 'Bearer ${{ env.LG_WEBHOOK_TOKEN }}' } } },
    { LG_WEBHOOK_TOKEN: 's3cret' },
  );
  const { agent, thread } = server({ deploymentConfig });
  agent.runs.create(thread, { assistant_id: 'agent', webhook: receiver.url });
  await agent.webhooks.idle();
  expect(receiver.received()[0].headers).toMatchObject({ 'x-static': 'one', authorization: 'Bearer s3cret', 'content-type': 'application/json' });
});

test('http.disable_webhooks: runs still execute, nothing is sent', async () => {
  const deploymentConfig = resolveDeploymentConfig({ http: { disable_webhooks: true } }, {});
  const { agent, thread } = server({ deploymentConfig });
  const run = agent.runs.create(thread, { assistant_id: 'agent', webhook: receiver.url });
  await agent.webhooks.idle();
  expect(run.status).toBe('success');
  expect(receiver.received()).toEqual([]);
});

test('a relative URL is delivered to the server itself; a tunnelled origin to its local end', async () => {
  const { agent, thread } = server({ selfUrl: () => receiver.url, webhookTunnels: { 'http://receiver.apc.test': receiver.url } });
  agent.runs.create(thread, { assistant_id: 'agent', webhook: '/own/route?x=1' });
  agent.runs.create(thread, { assistant_id: 'agent', webhook: 'http://receiver.apc.test/tunnelled?y=2' });
  await agent.webhooks.idle();
  expect(receiver.received().map((r) => [r.path, r.query])).toEqual([
    ['/own/route', { x: '1' }],
    ['/tunnelled', { y: '2' }],
  ]);
});

test('an attempt whose answer trickles past the deadline is cut off there and retried', async () => {
  const deadlineMs = 500;
  // Headers and a first byte at once, then a byte every 50 ms for 10 s: each phase is quick, the whole is not.
  const trickleMs = 10_000;
  const attempts: { started: number; cutAfter?: number }[] = [];
  let closed!: () => void;
  const firstClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const trickling = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const attempt: { started: number; cutAfter?: number } = { started: Date.now() };
      attempts.push(attempt);
      res.on('close', () => {
        if (!res.writableFinished) attempt.cutAfter = Date.now() - attempt.started;
        if (attempts.length === 1) closed();
      });
      if (attempts.length > 1) {
        // The retry is answered in full.
        res.writeHead(200).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).write(' ');
      const drip = setInterval(() => res.write(' '), 50);
      const end = setTimeout(() => res.end('{}'), trickleMs);
      res.on('close', () => {
        clearInterval(drip);
        clearTimeout(end);
      });
    });
  });
  await new Promise<void>((resolve) => trickling.listen(0, '127.0.0.1', () => resolve()));
  try {
    const { clock, agent, thread, logs } = server({ webhookAttemptTimeoutMs: deadlineMs });
    agent.runs.create(thread, { assistant_id: 'agent', webhook: `http://127.0.0.1:${(trickling.address() as AddressInfo).port}/slow` });
    await agent.webhooks.idle();
    await firstClosed;
    expect(attempts).toHaveLength(1);
    // Cut by the sender before the body ended; the bound is generous, the deadline is what cut it.
    expect(attempts[0].cutAfter, 'the sender closed the trickling answer').toBeDefined();
    expect(attempts[0].cutAfter!).toBeGreaterThanOrEqual(deadlineMs - 50);
    expect(attempts[0].cutAfter!).toBeLessThan(trickleMs / 2);
    expect(logs).toEqual([
      expect.stringMatching(/debug: webhook to http:\/\/127\.0\.0\.1:\d+\/slow: attempt 1 failed \(.*timeout.*\); attempt 2 due in 1000 ms$/),
    ]);
    // Retried as any network error: attempt 2, due 1 s of virtual time later, is answered and ends the delivery.
    clock.advance(1000);
    await agent.webhooks.idle();
    expect(attempts.map((a) => a.cutAfter === undefined)).toEqual([false, true]);
    expect(agent.webhooks.busy()).toBe(false);
  } finally {
    trickling.closeAllConnections();
    await new Promise<void>((resolve) => trickling.close(() => resolve()));
  }
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
