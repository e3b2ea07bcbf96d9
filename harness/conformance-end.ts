// What global teardown hands the reporter about the run as a whole (both run in Playwright's
// runner process, teardown first): what the run created on the target and what it removed, and
// whether the target was lost. Files in the run's scratch folder, as the run itself is handed over
// (conformance-run.ts): the reporter and global setup may not share their modules.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformancePlan } from './conformance-options.ts';
import type { Leftovers } from './leftovers.ts';
import type { TargetLoss } from './target-watch.ts';

type ConformanceEnd = Leftovers;

const endFile = (plan: ConformancePlan) => join(plan.scratch, 'run-end.json');
const lostFile = (plan: ConformancePlan) => join(plan.scratch, 'target-lost.json');

export function recordConformanceEnd(plan: ConformancePlan, end: ConformanceEnd): void {
  writeFileSync(endFile(plan), JSON.stringify(end));
}

export function conformanceEnd(plan: ConformancePlan): ConformanceEnd {
  return existsSync(endFile(plan)) ? (JSON.parse(readFileSync(endFile(plan), 'utf8')) as ConformanceEnd) : { created: {}, cleanedUp: {}, left: {} };
}

/** Records that the target stopped answering (the run is then stopped). */
export function recordTargetLost(plan: ConformancePlan, loss: TargetLoss): void {
  writeFileSync(lostFile(plan), JSON.stringify(loss));
}

/** Why the target was declared lost, and since when, if it was. */
export function targetLost(plan: ConformancePlan): TargetLoss | undefined {
  return existsSync(lostFile(plan)) ? (JSON.parse(readFileSync(lostFile(plan), 'utf8')) as TargetLoss) : undefined;
}
