// The webhook notification (§6, §6a): when a run created with `webhook` finishes, its
// payload is built at once and POSTed as JSON. A receiver that fails with a 5xx, a 429 or a
// network error is tried again on the virtual clock, 3 attempts in all as the reference does
// (langgraph-api webhook.py and http.py); any other answer ends the delivery. A failed delivery changes nothing
// else: it is only logged.
import { request } from 'undici';
import type { WebhookPayload } from '../../specs/types/agent-server.ts';
import type { Clock } from '../clock.ts';
import type { Log } from '../log.ts';
import type { RunRecord } from './runs.ts';
import type { ThreadRecord } from './threads.ts';
import { isRelativeWebhook } from './webhook-policy.ts';

// WEBHOOK-RETRY, WEBHOOK-RETRY-BEHAVIOUR: 3 attempts in all, 1 s then 2 s apart.
const MAX_ATTEMPTS = 3;
/** Virtual time between attempts n and n+1: 1 s, then 2 s. */
const backoffMs = (attempt: number) => 1000 * 2 ** (attempt - 1);

/**
 * Real-time limit of one attempt, as the reference (the open-source agent server, langgraph-api webhook.py
 * and http.py): one deadline for the whole attempt (connect, headers, body), so that a receiver that answers
 * slowly, or trickles its body, holds an attempt no longer than a silent one. At the deadline the attempt is
 * cut off and counts as a network error, retried like one. It is wall-clock time on every clock, so that a
 * hanging receiver never holds a delivery on a virtual clock that no one advances.
 */
const DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;

/** How much of a receiver's answer is read (and discarded) before the connection is closed: undici's default. */
const DISCARDED_BODY_LIMIT = 128 * 1024;

interface WebhookSenderOptions {
  clock: Clock;
  /** Configured headers (`webhooks.headers`), already resolved. */
  headers: Record<string, string>;
  /** `http.disable_webhooks`: runs still execute, nothing is sent. */
  disabled: boolean;
  /** The server's own base URL, for relative webhook URLs. */
  selfUrl: () => string | undefined;
  /** Origins delivered to another origin, as a tunnel in front of a local receiver would. */
  tunnels?: Record<string, string>;
  /** The real-time limit of one attempt (default DEFAULT_ATTEMPT_TIMEOUT_MS). */
  attemptTimeoutMs?: number;
  log?: Log;
}

type Outcome = { status: number } | { error: string };

/**
 * The payload of a finished run: exactly the fields of the §6 table, its run fields those of the run
 * (WEBHOOK-PAYLOAD-RUN-RECORD); no values for a stateless run (WEBHOOK-PAYLOAD-VALUES-STATELESS), no
 * error for a run that did not fail (WEBHOOK-PAYLOAD-ERROR-ABSENT).
 */
function webhookPayload(run: RunRecord, thread: ThreadRecord | undefined, sentAt: string): WebhookPayload {
  return structuredClone({
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    status: run.status,
    created_at: run.created_at,
    updated_at: run.updated_at,
    run_started_at: run.run_started_at ?? run.created_at,
    ...(run.run_ended_at === undefined ? {} : { run_ended_at: run.run_ended_at }),
    webhook_sent_at: sentAt,
    metadata: run.metadata,
    kwargs: run.kwargs,
    // A stateless run's thread is temporary: its state is not part of the notification.
    ...(run.temporary ? {} : { values: thread?.checkpoints.at(-1)?.values ?? {} }),
    multitask_strategy: run.multitask_strategy,
    ...(run.error ? { error: { error: run.error.error, message: run.error.message } } : {}),
  });
}

export class WebhookSender {
  private cancels = new Set<() => void>();
  private inFlight = new Set<Promise<void>>();
  /** Bumped by clear(): answers to attempts made before a reset are ignored. */
  private generation = 0;

  constructor(private readonly options: WebhookSenderOptions) {}

  /**
   * Called once when a run reaches its final status: the server's one outbound notification (WEBHOOK-ONLY-EVENT),
   * one POST per completion (WEBHOOK-TRIGGER, WEBHOOK-ONE-DELIVERY); none without a URL (WEBHOOK-NO-URL-NO-POST)
   * or under http.disable_webhooks (WEBHOOK-CONFIG-DISABLE-WEBHOOKS).
   */
  notify(run: RunRecord, thread: ThreadRecord | undefined): void {
    if (this.options.disabled || run.webhook === undefined) return;
    const body = JSON.stringify(webhookPayload(run, thread, this.options.clock.iso()));
    this.attempt(run.webhook, body, 1, this.options.clock.now());
  }

  /** Resolves when no attempt is on the wire (attempts waiting on the virtual clock excepted). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Whether a delivery is on the wire or waiting for its next attempt. */
  busy(): boolean {
    return this.underWay() > 0;
  }

  /** How many deliveries are on the wire or waiting for their next attempt. */
  underWay(): number {
    return this.inFlight.size + this.cancels.size;
  }

  clear(): void {
    this.generation += 1;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
  }

  /** Attempt n is due `firstAt` + the backoffs before it; one that is overdue goes at once. */
  private attempt(url: string, body: string, n: number, firstAt: number): void {
    const generation = this.generation;
    const sending = this.send(url, body).then((outcome) => {
      this.inFlight.delete(sending);
      if (generation !== this.generation) return;
      if (!retryable(outcome)) {
        // Another 4xx ends the delivery at once; anything below 400 is a success (WEBHOOK-RECEIVER-RESPONSE).
        if ('status' in outcome && outcome.status >= 400) this.failed(url, n, outcome);
        return;
      }
      if (n >= MAX_ATTEMPTS) {
        this.failed(url, n, outcome);
        return;
      }
      let due = firstAt;
      for (let i = 1; i <= n; i++) due += backoffMs(i);
      this.options.log?.debug(
        `webhook to ${logged(url)}: attempt ${n} failed (${reason(outcome)}); attempt ${n + 1} due in ${Math.max(0, due - this.options.clock.now())} ms`,
      );
      if (due <= this.options.clock.now()) {
        this.attempt(url, body, n + 1, firstAt);
        return;
      }
      const cancel = this.options.clock.schedule(due, () => {
        this.cancels.delete(cancel);
        this.attempt(url, body, n + 1, firstAt);
      });
      this.cancels.add(cancel);
    });
    this.inFlight.add(sending);
  }

  /** JSON with the configured headers (WEBHOOK-CONTENT-TYPE, WEBHOOK-CONFIG-HEADERS); unsigned (WEBHOOK-SIGNING). */
  private async send(url: string, body: string): Promise<Outcome> {
    const deadline = AbortSignal.timeout(this.options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS);
    try {
      const response = await request(this.destination(url), {
        method: 'POST',
        headers: { ...this.options.headers, 'content-type': 'application/json' },
        body,
        signal: deadline,
        // The deadline alone bounds the attempt: undici's per-phase timers (300 s by default) would cut a longer one.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      // Given the deadline, dump() rejects when it cuts the body; without it, a cut body would count as an answer.
      await response.body.dump({ limit: DISCARDED_BODY_LIMIT, signal: deadline });
      return { status: response.statusCode };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  /** The URL as given, its query (a receiver's secret) kept verbatim (AUTH-WEBHOOK-SECRET-QUERY). */
  private destination(url: string): URL {
    if (isRelativeWebhook(url)) {
      const self = this.options.selfUrl();
      if (self === undefined) throw new Error('the server does not know its own address yet');
      return new URL(url, self);
    }
    const target = new URL(url);
    const tunnel = this.options.tunnels?.[target.origin];
    return tunnel ? new URL(`${target.pathname}${target.search}`, tunnel) : target;
  }

  /** A delivery that finally failed is only logged: neither its run nor later runs change (WEBHOOK-FAILURE-NO-EFFECT). */
  private failed(url: string, attempts: number, outcome: Outcome): void {
    // The receiver's answer, not the simulator's fault: info (simulator/log.ts).
    this.options.log?.info(`webhook to ${logged(url)} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason(outcome)}`);
  }
}

/** A webhook URL as logged: the query may carry the receiver's secret (§5), so it is left out. */
function logged(url: string): string {
  return isRelativeWebhook(url) ? url.split('?')[0] : `${new URL(url).origin}${new URL(url).pathname}`;
}

const reason = (outcome: Outcome) => ('error' in outcome ? outcome.error : `status ${outcome.status}`);

function retryable(outcome: Outcome): boolean {
  return 'error' in outcome || outcome.status >= 500 || outcome.status === 429;
}
