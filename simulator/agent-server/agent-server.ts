// One simulated agent server (a deployment): its stores share the simulator's clock and ids.
import type { Clock } from '../clock.ts';
import { conflict } from '../http/errors.ts';
import { NO_DEPLOYMENT_CONFIG, type DeploymentConfig } from '../deployment-config.ts';
import type { IdGenerator } from '../ids.ts';
import type { Log } from '../log.ts';
import { AssistantStore } from './assistants.ts';
import { CronStore } from './crons.ts';
import { RunStore, type RunHooks } from './runs.ts';
import { ThreadStore } from './threads.ts';
import { checkWebhookUrl } from './webhook-policy.ts';
import { WebhookSender } from './webhooks.ts';

export interface AgentServerOptions {
  /** The deployment configuration file the server started with (§6). */
  deploymentConfig?: DeploymentConfig;
  /** The server's own base URL, where relative webhook URLs are delivered. */
  selfUrl?: () => string | undefined;
  /** Webhook origins delivered elsewhere (see WebhookSenderOptions.tunnels). */
  webhookTunnels?: Record<string, string>;
  /** The real-time limit of one webhook attempt (WebhookSenderOptions.attemptTimeoutMs). */
  webhookAttemptTimeoutMs?: number;
  /** How long a run of a built-in graph takes, in simulated ms (RunStoreOptions.durationMs). */
  runDurationMs?: number;
  /** Where webhook and cron outcomes are told (simulator/log.ts); none by default. */
  log?: Log;
}

export class AgentServer {
  readonly threads: ThreadStore;
  readonly assistants: AssistantStore;
  readonly runs: RunStore;
  readonly crons: CronStore;
  readonly webhooks: WebhookSender;

  /** `hooks` observe runs besides the server's own webhook notifications. */
  constructor(env: { clock: Clock; ids: IdGenerator }, hooks: RunHooks = {}, options: AgentServerOptions = {}) {
    const config = options.deploymentConfig ?? NO_DEPLOYMENT_CONFIG;
    const checkWebhook = (url: string) => {
      checkWebhookUrl(url, config.webhooks.urlPolicy);
      hooks.checkWebhook?.(url);
    };
    this.threads = new ThreadStore(env);
    this.assistants = new AssistantStore(
      () => env.clock.iso(),
      () => env.ids.uuid(),
    );
    this.webhooks = new WebhookSender({
      clock: env.clock,
      headers: config.webhooks.headers,
      disabled: config.webhooks.disabled,
      selfUrl: options.selfUrl ?? (() => undefined),
      tunnels: options.webhookTunnels,
      attemptTimeoutMs: options.webhookAttemptTimeoutMs,
      log: options.log,
    });
    this.runs = new RunStore(
      env,
      this.threads,
      this.assistants,
      {
        onFinished: (run, thread) => {
          // Every run notifies here, whichever endpoint created it (WEBHOOK-EMIT-CREATE-RUN, WEBHOOK-EMIT-STREAM-RUN,
          // WEBHOOK-EMIT-WAIT-RUN, WEBHOOK-EMIT-STATELESS-STREAM, WEBHOOK-EMIT-STATELESS-WAIT).
          this.webhooks.notify(run, thread);
          hooks.onFinished?.(run, thread);
        },
        checkWebhook,
      },
      { durationMs: options.runDurationMs, log: options.log },
    );
    this.crons = new CronStore({ ...env, runs: this.runs, threads: this.threads, assistants: this.assistants, checkWebhook, log: options.log });
  }

  /** DELETE /threads/{thread_id}: the thread, its runs (those in progress stop) and its crons. */
  deleteThread(threadId: string): void {
    this.threads.record(threadId);
    this.crons.forgetThread(threadId);
    this.runs.forgetThread(threadId);
    this.threads.delete(threadId);
  }

  /**
   * ASSISTANT-DELETE: the assistant, its runs (those in progress stop) and its crons; with `deleteThreads`, also
   * the threads whose metadata.assistant_id names it (the reference's delete_threads).
   */
  deleteAssistant(idOrGraph: string, deleteThreads: boolean): void {
    const { assistant_id: assistantId } = this.assistants.get(idOrGraph);
    this.crons.forgetAssistant(assistantId);
    this.runs.forgetAssistant(assistantId);
    if (deleteThreads) for (const threadId of this.threads.withMetadata({ assistant_id: assistantId })) this.deleteThread(threadId);
    this.assistants.delete(assistantId);
  }

  /** Threads, runs, assistants and crons as plain JSON; refused (409) while runs or webhook deliveries are under way. */
  snapshot() {
    if (this.webhooks.busy()) throw conflict('Cannot snapshot while webhook deliveries are under way: wait for them to end and try again.');
    return { threads: this.threads.snapshot(), assistants: this.assistants.snapshot(), runs: this.runs.snapshot(), crons: this.crons.snapshot() };
  }

  restore(snapshot: ReturnType<AgentServer['snapshot']>): void {
    this.reset();
    this.threads.restore(snapshot.threads);
    this.assistants.restore(snapshot.assistants);
    this.runs.restore(snapshot.runs);
    this.crons.restore(snapshot.crons);
  }

  reset(): void {
    this.crons.clear();
    this.webhooks.clear();
    this.runs.clear();
    this.threads.clear();
    this.assistants.clear();
  }
}
