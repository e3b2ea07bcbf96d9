// What global setup hands the workers and the reporter: the plan, the target it resolved, the
// proxy URL per plane and the run's webhook receiver, in a file it leaves in the run's scratch folder.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Endpoint } from '../specs/contract.ts';
import type { Profile } from './profile.ts';
import type { ReceiverAccess } from './receiver-client.ts';
import type { ConformancePlan } from './conformance-options.ts';
import type { Target } from './target.ts';

export interface ConformanceRun {
  plan: ConformancePlan;
  target: Target;
  /** Recording-proxy URL per endpoint: tests reach the target only through these. */
  proxies: Partial<Record<Endpoint, string>>;
  /** The run's one webhook receiver (its local URL and control token). */
  receiver: ReceiverAccess;
  /** What the run may create on the target: --profile, or the target's default. */
  profile: Profile;
  /**
   * Keeps this run's data apart from earlier runs' on a target that keeps state: the seed
   * on a simulator (reset per run, so reports stay the same), the seed and the start time
   * elsewhere.
   */
  runKey: string;
}

/** What a shared deployment's exchanges are recorded under, with its spec file and the run key (`shared-deployment-control-plane-revisions-<tag>`). */
export const SHARED_DEPLOYMENT = 'shared-deployment';

/** Marks what a run creates on its target, so that it can be found again (metadata key or name prefix). */
const RUN_MARK = 'apc_run';

/** The mark of a run's resources: metadata `{apc_run: <run key>}`, names starting `apc-<run key>`. */
export function conformanceMarkOf(conformanceRun: ConformanceRun): Record<string, string> {
  return { [RUN_MARK]: conformanceRun.runKey };
}

/** Where the target reaches the run's webhook receiver: through the configured tunnel, or on loopback. */
export function receiverUrl(conformanceRun: ConformanceRun): string {
  return (conformanceRun.target.webhookReceiverUrl ?? conformanceRun.receiver.url).replace(/\/+$/, '');
}

const fileOf = (plan: ConformancePlan) => join(plan.scratch, 'run-context.json');

/** Global setup's part: the run, for the workers and the reporter. */
export function shareConformanceRun(conformanceRun: ConformanceRun): void {
  writeFileSync(fileOf(conformanceRun.plan), JSON.stringify(conformanceRun));
}

/** The run global setup shared; undefined before it did (it failed). */
export function sharedConformanceRun(plan: ConformancePlan): ConformanceRun | undefined {
  return existsSync(fileOf(plan)) ? readConformanceRun(plan) : undefined;
}

/** In a worker: the run global setup left in the plan's scratch folder. */
export function readConformanceRun(plan: ConformancePlan): ConformanceRun {
  return JSON.parse(readFileSync(fileOf(plan), 'utf8')) as ConformanceRun;
}
