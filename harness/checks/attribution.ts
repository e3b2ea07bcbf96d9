// A test that checks several rules judges each apart: a failed check of one rule fails that
// rule and the test goes on, so the test's other rules are judged as well (soft per rule). A
// test that cannot judge its rule says why, in one of a few kinds the report can weigh
// (SkipKind, in specs/evidence-protocol.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { test, type TestInfo } from '@playwright/test';
import type { SkipKind } from '../../specs/evidence-protocol.ts';
import { exchangeDescribedIn } from '../described-exchanges.ts';
import { evidenceOf, type RuleNotJudged } from '../test-evidence.ts';

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
// final counterexample's failure is attributed (by the property runner). Quiet follows the
// async context, not the clock: a run the property runner stopped waiting for at its deadline
// stays quiet when it ends later, in the next test's time.
const quietContext = new AsyncLocalStorage<true>();
const isQuiet = () => quietContext.getStore() === true;

export async function quietly<T>(run: () => Promise<T>): Promise<T> {
  return quietContext.run(true, run);
}

/** A skip asked for inside a property: fast-check sees an error, and the property ends as a skipped test. */
class SkipRequested extends Error {
  constructor(
    message: string,
    readonly kind: SkipKind,
    readonly explainedBy: readonly string[],
  ) {
    super(message);
  }
}

/** The errors Playwright's test.skip() threw for skipAs: a check that meets one passes it on. */
const skips = new WeakSet<object>();

function skipAs(kind: SkipKind, reason: string, rules: readonly string[] = []): never {
  if (isQuiet()) throw new SkipRequested(reason, kind, rules);
  // A failed precondition shows the step it needed: the exchange its reason names.
  const exchange = kind === 'precondition' ? exchangeDescribedIn(reason) : undefined;
  evidenceOf(test.info()).skip = { kind, explainedBy: kind === 'precondition' ? [...rules] : [], ...(exchange ? { exchange } : {}) };
  try {
    test.skip(true, reason);
  } catch (skip) {
    skips.add(skip as object);
    throw skip;
  }
  throw new Error('unreachable: test.skip returned');
}

/**
 * Skips the test (or, inside a property, ends the property so) because a step it needs failed.
 * `explainedBy` names the rules whose failure explains it (never the rule the test judges): the
 * report checks that one of them failed in the same run, and makes an unexplained skip an error.
 */
export function skipForPrecondition(reason: string, explainedBy: readonly string[]): never {
  return skipAs('precondition', reason, explainedBy);
}

/** Skips the test when `condition` holds: what the target declares (capabilities, profile, planes, configuration, version) rules it out. */
export function skipDeclared(condition: boolean, reason: string): void {
  if (condition) skipAs('declared', reason);
}

/** Skips the test when `condition` holds: this machine, or what the target holds, could not make the check; the run then cannot pass. */
export function skipForMachine(condition: boolean, reason: string): void {
  if (condition) skipAs('machine', reason);
}

/** The running test's failed forRule checks, thrown together when it ends (endRuleChecks). */
const softFailures: RuleViolation[] = [];

/**
 * Runs checks for one rule; a failure is attributed to that rule, and the test goes on to judge
 * its other rules: the failures are thrown together when the test ends (the fixtures call
 * endRuleChecks). A check of another rule that needs this one to have passed guards itself.
 * Inside a property the failure is thrown at once: fast-check shrinks on it.
 */
export async function forRule(rule: string, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (error) {
    // A skip (a failed precondition, a profile that forbids a step) is no finding about the rule.
    if (error instanceof RuleViolation || error instanceof SkipRequested || skips.has(error as object)) throw error;
    const violation = new RuleViolation(rule, error);
    if (isQuiet()) throw violation;
    attributeFailure(violation);
    softFailures.push(violation);
  }
}

/**
 * In a test of several rules: `rule`'s check cannot be made, because a step it needs failed (often
 * another rule's check). The test goes on with its other rules; this one counts as skipped on a
 * failed precondition explained by `explainedBy`, never as passed.
 */
export function ruleNotJudged(rule: string, reason: string, explainedBy: readonly string[]): void {
  if (isQuiet()) return;
  const entry: RuleNotJudged = { rule, reason, explainedBy: [...explainedBy] };
  const { notJudged } = evidenceOf(test.info());
  if (!notJudged.some((n) => n.rule === rule)) notJudged.push(entry);
}

/** Forgets the failed checks of an earlier test (a test that ended on a timeout never threw them). */
export function startRuleChecks(): void {
  softFailures.length = 0;
}

/**
 * Once a test's body has ended: throws its failed forRule checks, which fails the test. A body that
 * ended without any other failure judged each of its rules apart, which the report reads.
 */
export function endRuleChecks(testInfo: TestInfo): void {
  if (softFailures.length === 0) return;
  const failures = softFailures.splice(0);
  if (testInfo.status === 'passed') evidenceOf(testInfo).judgedApart = true;
  if (failures.length === 1) throw failures[0];
  throw new Error(failures.map((f) => f.message).join('\n\n'), { cause: failures[0] });
}

/** Marks the rule named by a failure (found along its cause chain) as the one that failed. */
export function attributeFailure(error: unknown): void {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof SkipRequested) skipAs(e.kind, e.message, e.explainedBy);
    if (e instanceof RuleViolation) {
      const { failures } = evidenceOf(test.info());
      const cause = e.cause instanceof Error ? e.cause.message : String(e.cause);
      const exchange = exchangeDescribedIn(e.message);
      if (!failures.some((f) => f.rule === e.rule)) failures.push({ rule: e.rule, message: cause, ...(exchange ? { exchange } : {}) });
      return;
    }
  }
}
