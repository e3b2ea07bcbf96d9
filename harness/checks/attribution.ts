// A test that checks several rules says which one failed, so the report fails exactly
// that rule; the test's other rules count as not reached.
import { test } from '@playwright/test';

export const RULE_FAILED = 'rule-failed';

/** An assertion failure that names the rule it breaks. */
class RuleViolation extends Error {
  constructor(
    readonly rule: string,
    cause: unknown,
  ) {
    super(`${rule}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

// Inside a property, fast-check runs the checks many times while shrinking: only the
// final counterexample's failure is attributed (by the property runner).
let quiet = 0;

export async function quietly<T>(run: () => Promise<T>): Promise<T> {
  quiet += 1;
  try {
    return await run();
  } finally {
    quiet -= 1;
  }
}

/** A setup step failed inside a property: the property ends as a skipped test. */
class PreconditionFailed extends Error {}

/** Skips the test as a failed precondition (or, inside a property, ends the property so). */
export function skipForPrecondition(reason: string): never {
  if (quiet > 0) throw new PreconditionFailed(reason);
  test.skip(true, reason);
  throw new Error('unreachable: test.skip returned');
}

/** Runs checks for one rule; a failure is attributed to that rule. */
export async function forRule<T>(rule: string, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    // A skip (a failed precondition, a profile that forbids a step) is no finding about the rule.
    if (error instanceof RuleViolation || error instanceof PreconditionFailed || isSkip(error)) throw error;
    const violation = new RuleViolation(rule, error);
    if (quiet === 0) attributeFailure(violation);
    throw violation;
  }
}

/** Playwright's own skip, thrown by test.skip() inside a test. */
function isSkip(error: unknown): boolean {
  return error instanceof Error && error.constructor.name === 'TestSkipError';
}

/** Marks the rule named by a failure (found along its cause chain) as the one that failed. */
export function attributeFailure(error: unknown): void {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof PreconditionFailed) test.skip(true, e.message);
    if (e instanceof RuleViolation) {
      test.info().annotations.push({ type: RULE_FAILED, description: e.rule });
      return;
    }
  }
}
