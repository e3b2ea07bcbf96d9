// What global setup hands every worker (through one environment variable): the target,
// the proxy URL per plane, the seed and the output folder.
import type { Endpoint } from '../specs/contract.ts';
import type { Profile } from './profile.ts';
import type { ReceiverAccess } from './receiver-client.ts';
import type { Target } from './target.ts';

export const RUN_ENV = 'APC_RUN';

export interface RunContext {
  target: Target;
  /** Recording-proxy URL per endpoint: tests reach the target only through these. */
  proxies: Partial<Record<Endpoint, string>>;
  seed: string;
  /** The run's one webhook receiver (its local URL and control token). */
  receiver: ReceiverAccess;
  /** What the run may create on the target (run --profile). */
  profile: Profile;
  /**
   * Keeps this run's data apart from earlier runs' on a target that keeps state: the seed
   * on a simulator (reset per run, so reports stay the same), the seed and the start time
   * elsewhere.
   */
  runTag: string;
  outDir: string;
}

/** What a shared deployment's exchanges are recorded under, with the worker and the run tag (`shared-deployment-w0-<tag>`). */
export const SHARED_DEPLOYMENT = 'shared-deployment';

/** Marks what a run creates on its target, so that it can be found again (metadata key or name prefix). */
const RUN_MARK = 'apc_run';

/** The mark of this run's resources: metadata `{apc_run: <run tag>}`, names starting `apc-<run tag>`. */
export function runMark(): Record<string, string> {
  return { [RUN_MARK]: runContext().runTag };
}

/** Where the target reaches the run's webhook receiver: through the configured tunnel, or on loopback. */
export function receiverUrl(run: RunContext): string {
  return (run.target.webhookReceiverUrl ?? run.receiver.url).replace(/\/+$/, '');
}

export function runContext(): RunContext {
  const raw = process.env[RUN_ENV];
  if (!raw) throw new Error(`${RUN_ENV} is not set: run the suites through the CLI (agent-platform-conformance run) or harness/playwright.config.ts`);
  return JSON.parse(raw) as RunContext;
}
