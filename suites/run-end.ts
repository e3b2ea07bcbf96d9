// What global teardown hands the reporter about the run as a whole (both run in Playwright's
// runner process, teardown first): what the run created on the target and what it removed.
import type { Endpoint } from '../specs/contract.ts';

export interface RunEnd {
  created: Partial<Record<Endpoint, Record<string, number>>>;
  cleanedUp: Partial<Record<Endpoint, Record<string, number>>>;
}

const KEY = Symbol.for('agent-platform-conformance.run-end');

export function recordRunEnd(end: RunEnd): void {
  (globalThis as Record<symbol, unknown>)[KEY] = end;
}

export function runEnd(): RunEnd {
  return ((globalThis as Record<symbol, unknown>)[KEY] as RunEnd | undefined) ?? { created: {}, cleanedUp: {} };
}
