// What global teardown hands the reporter about the run as a whole (both run in Playwright's
// runner process, teardown first): what the run created on the target and what it removed.
import type { Leftovers } from './leftovers.ts';

type ConformanceEnd = Leftovers;

const KEY = Symbol.for('agent-platform-conformance.run-end');

export function recordConformanceEnd(end: ConformanceEnd): void {
  (globalThis as Record<symbol, unknown>)[KEY] = end;
}

export function conformanceEnd(): ConformanceEnd {
  return ((globalThis as Record<symbol, unknown>)[KEY] as ConformanceEnd | undefined) ?? { created: {}, cleanedUp: {}, left: {} };
}

const LOST = Symbol.for('agent-platform-conformance.target-lost');

/** Records that the target stopped answering (the run is then stopped). */
export function recordTargetLost(reason: string): void {
  (globalThis as Record<symbol, unknown>)[LOST] = reason;
}

/** Why the target was declared lost, if it was. */
export function targetLost(): string | undefined {
  return (globalThis as Record<symbol, unknown>)[LOST] as string | undefined;
}
