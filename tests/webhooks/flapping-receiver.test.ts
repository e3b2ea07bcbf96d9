// Issue 13, webhooks with a flapping receiver, against an in-process simulator on the real clock.
// The simulator's documented schedule (simulator/agent-server/webhooks.ts, docs/simulator.md "Time"): a 5xx,
// 429 or network error is tried again, 3 attempts in all, attempt 2 due 1 s and attempt 3 due 3 s
// after the delivery began; an attempt the receiver leaves unanswered is cut off after the attempt
// timeout and counts as a network error. Deliveries never hold up runs.
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run, Thread, WebhookPayload } from '../../specs/types/agent-server.ts';
import { Simulator } from '../../simulator/simulator.ts';

/** What the receiver does with one attempt: answer a status, or hold it and never answer. */
type Behaviour = number | 'hang';

interface Attempt {
  body: string;
  /** Simulated time of arrival. */
  at: number;
  behaviour: Behaviour;
  /** Set when the sender gave up on a held attempt: the simulated time it closed the request. */
  cutAt?: number;
}

/** A receiver on 127.0.0.1 that answers each path's attempts as scripted (the last behaviour repeats). */
class FlappingReceiver {
  readonly attempts = new Map<string, Attempt[]>();
  private readonly waiters = new Set<() => void>();
  private server!: Server;
  url = '';

  constructor(
    private readonly now: () => number,
    private readonly scripts: Record<string, Behaviour[]>,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const list = this.attempts.get(path) ?? [];
        const script = this.scripts[path] ?? [200];
        const attempt: Attempt = { body: Buffer.concat(chunks).toString(), at: this.now(), behaviour: script[Math.min(list.length, script.length - 1)] };
        this.attempts.set(path, [...list, attempt]);
        res.on('close', () => {
          if (!res.writableFinished) attempt.cutAt = this.now();
          this.notify();
        });
        if (attempt.behaviour !== 'hang') res.writeHead(attempt.behaviour, { 'content-type': 'application/json' }).end('{}');
        this.notify();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  of(path: string): Attempt[] {
    return this.attempts.get(path) ?? [];
  }

  /** Resolves once `check` holds, re-checked at every arrival and every closed request. */
  until(check: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check()) return;
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
      waiter();
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let sim: Simulator | undefined;
let receiver: FlappingReceiver | undefined;
test.afterEach(async () => {
  // Retries waiting on the clock are cancelled first, so none reaches the closed receiver.
  sim?.agentServer.reset();
  await receiver?.close();
  await sim?.close();
  sim = receiver = undefined;
});

async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `POST ${url}`).toBe(200);
  return (await res.json()) as T;
}

test('a receiver that fails, then hangs, then recovers gets the delivery on the third attempt, on the documented schedule', async () => {
  const attemptTimeoutMs = 1_500;
  sim = await Simulator.start({ seed: 'flapping', clock: 'real', runDurationMs: 100, webhookAttemptTimeoutMs: attemptTimeoutMs, quiet: true });
  const clock = sim.clock;
  receiver = await new FlappingReceiver(() => clock.now(), { '/flap': [500, 'hang', 200] }).start();
  const agent = sim.urls['agent-server']!;
  const thread = await post<Thread>(`${agent}/threads`, {});
  const run = await post<Run>(`${agent}/threads/${thread.thread_id}/runs`, {
    assistant_id: 'agent',
    input: { topic: 'flap' },
    webhook: `${receiver.url}/flap`,
  });

  const flapping = receiver;
  await flapping.until(() => flapping.of('/flap').length >= 3);
  await sim.agentServer.webhooks.idle();
  const [first, second, third, ...more] = flapping.of('/flap');
  expect(more, 'no attempt after the one that succeeded').toEqual([]);
  expect([first.behaviour, second.behaviour, third.behaviour]).toEqual([500, 'hang', 200]);

  // None lost: the attempt after the recovery carries the run's notification, as every attempt does.
  const payload = JSON.parse(third.body) as WebhookPayload;
  expect([payload.run_id, payload.status]).toEqual([run.run_id, 'success']);
  expect(new Set([first.body, second.body, third.body]).size, 'every attempt sends the same payload').toBe(1);

  // The schedule: attempt 2 due 1 s, attempt 3 due 3 s after the delivery began (at webhook_sent_at).
  const began = Date.parse(payload.webhook_sent_at);
  expect(second.at - began, 'attempt 2 not before its due time').toBeGreaterThanOrEqual(1_000);
  expect(third.at - began, 'attempt 3 not before its due time').toBeGreaterThanOrEqual(3_000);
  // The hanging attempt was cut off by the sender's attempt timeout, and only then retried.
  expect(second.cutAt, 'the held attempt was closed by the sender').toBeDefined();
  expect(second.cutAt! - second.at, 'held for the attempt timeout').toBeGreaterThanOrEqual(attemptTimeoutMs - 50);
  expect(third.at, 'attempt 3 came after attempt 2 was cut off').toBeGreaterThanOrEqual(second.cutAt!);
});

test('a hanging receiver holds up no run: the run ends, and runs on its thread and others finish and notify meanwhile', async () => {
  // Longer than any test: the held attempt stays open until the test ends.
  sim = await Simulator.start({ seed: 'hanging', clock: 'real', runDurationMs: 100, webhookAttemptTimeoutMs: 600_000, quiet: true });
  const clock = sim.clock;
  receiver = await new FlappingReceiver(() => clock.now(), { '/hang': ['hang'], '/ok': [200] }).start();
  const hanging = receiver;
  const agent = sim.urls['agent-server']!;
  const thread = await post<Thread>(`${agent}/threads`, {});
  const held = await post<Run>(`${agent}/threads/${thread.thread_id}/runs`, {
    assistant_id: 'agent',
    input: { topic: 'held' },
    webhook: `${receiver.url}/hang`,
  });
  await hanging.until(() => hanging.of('/hang').length === 1);

  // The run whose notification hangs has its final status already.
  const read = await fetch(`${agent}/threads/${thread.thread_id}/runs/${held.run_id}`);
  expect(((await read.json()) as Run).status).toBe('success');

  // Meanwhile, a run on the same thread and runs on two other threads finish and notify.
  const others = [thread, await post<Thread>(`${agent}/threads`, {}), await post<Thread>(`${agent}/threads`, {})];
  const results = await Promise.all(
    others.map((t, i) =>
      post<Record<string, unknown>>(`${agent}/threads/${t.thread_id}/runs/wait`, {
        assistant_id: 'agent',
        input: { topic: `other-${i}` },
        webhook: `${receiver!.url}/ok`,
      }),
    ),
  );
  expect(results.map((values) => values.topic)).toEqual(['other-0', 'other-1', 'other-2']);
  await hanging.until(() => hanging.of('/ok').length === others.length);
  const notified = hanging.of('/ok').map((a) => (JSON.parse(a.body) as WebhookPayload).thread_id);
  expect(notified.sort()).toEqual(others.map((t) => t.thread_id).sort());
  expect(
    hanging.of('/hang').map((a) => a.cutAt),
    'all of it while the first notification was still held',
  ).toEqual([undefined]);
});
