// What one test showed, as one typed record: the exchanges it made, how each of its rules came
// out (a failure carrying what the check said and the exchange that shows it), why it could not
// judge them, what it observed and what it sent again. The test's fixtures fill it in as the test
// runs; one auto fixture attaches it when the test ends; the reporter reads it as one object.
// Playwright's own outcome (status, error text, duration) stays Playwright's.
import { test, type TestInfo, type TestInfoError } from '@playwright/test';
import type { Exchange, SkipKind } from '../specs/evidence-protocol.ts';
import { onNotJudged } from './retry.ts';

/** The name of the attachment that carries a test's record. */
export const EVIDENCE_ATTACHMENT = 'apc-evidence';

/** A failed check of one rule: what it says (what the spec asks, what the target answered) and the exchange that shows it. */
export interface RuleFailure {
  rule: string;
  /** The check's message: what the spec asks, then what was received. */
  message: string;
  /** The exchange the check judged, where it names one. */
  exchange?: string;
}

/** A rule of a multi-rule test that the test could not judge, and why. */
export interface RuleNotJudged {
  rule: string;
  reason: string;
  /** The rules whose failure explains it (a failed precondition's). */
  explainedBy: string[];
}

/** Why a test that was skipped could not judge its rules (SkipKind), and the rules whose failure explains it. */
export interface TestSkip {
  kind: SkipKind;
  /** For a failed precondition: the rules whose failure explains it. */
  explainedBy: string[];
  /** The exchange of the step that failed, where the reason names one. */
  exchange?: string;
}

/** What an `unspecified` rule's test saw the target do. */
export interface Observation {
  rule: string;
  observation: string;
}

export interface TestEvidence {
  /** The exchanges the test made through the proxies (its own, then those of the shared steps it names). */
  exchanges: Exchange[];
  /** The rules whose checks failed, each with its first failed check (in the order they failed). */
  failures: RuleFailure[];
  /**
   * The test ran to its end with failures only of checks of one rule (forRule): each of its other
   * rules had all its checks run and passed.
   */
  judgedApart: boolean;
  /** Rules of a multi-rule test it could not judge (a step they needed failed). */
  notJudged: RuleNotJudged[];
  /** The exchange the test's failure names: the answer a failed check judged (its first error's). */
  failedExchange?: string;
  /**
   * A request of the test could not be judged (RequestNotJudged): the target could not be reached,
   * or met transient faults it could not be sent again past. A test that failed then says nothing
   * about its rules.
   */
  unreachable?: boolean;
  /** How the test was skipped, when it was skipped by the harness (none: a skip that gave no kind). */
  skip?: TestSkip;
  observations: Observation[];
  /** Requests its client sent again after waiting (a rate limit, a transient fault), said as a line each. */
  sentAgain: string[];
  /** Ids of the steps shared with other tests whose exchanges it shows (a shared deployment). */
  sharedEvidence: string[];
}

/** A record with nothing in it: a test's before it runs, and a test's that never ran. */
export function emptyEvidence(): TestEvidence {
  return { exchanges: [], failures: [], judgedApart: false, notJudged: [], observations: [], sentAgain: [], sharedEvidence: [] };
}

// Each running test's record, filled in by the harness as the test runs. Keyed by its TestInfo, which
// Playwright keeps for the test's whole run (fixtures included) and then lets go.
const running = new WeakMap<TestInfo, TestEvidence>();

/** The record of the test `testInfo` runs, started on first use. */
export function evidenceOf(testInfo: TestInfo): TestEvidence {
  let evidence = running.get(testInfo);
  if (!evidence) {
    evidence = emptyEvidence();
    running.set(testInfo, evidence);
  }
  return evidence;
}

/** Notes in the record of the running test, if a test is running (the CLI's own requests run in none). */
export function inRunningTest(note: (evidence: TestEvidence, testInfo: TestInfo) => void): void {
  let info: TestInfo;
  try {
    info = test.info();
  } catch {
    return;
  }
  note(evidenceOf(info), info);
}

// A test that made a request it could not judge says nothing of its rules if it fails (its verdict is error).
onNotJudged(() =>
  inRunningTest((evidence) => {
    evidence.unreachable = true;
  }),
);

/**
 * Redacts what a test says in words, in place, before its record is written and before Playwright
 * sends its result on: its errors (Playwright's reporters write them out), its skip
 * reasons (annotations), and its record's failures, observations, reasons and retries. `redact`
 * answers the texts redacted (the recording proxy's, which knows the secrets the run has met).
 * The exchanges are redacted already, by the proxy that recorded them.
 */
export async function redactWords(testInfo: TestInfo, evidence: TestEvidence, redact: (texts: string[]) => Promise<string[]>): Promise<void> {
  const slots: { text: string; set: (redacted: string) => void }[] = [];
  const slot = (text: string | undefined, set: (redacted: string) => void) => {
    if (text) slots.push({ text, set });
  };
  const errorSlots = (error: TestInfoError) => {
    for (const key of ['message', 'stack', 'value'] as const) slot(error[key], (redacted) => (error[key] = redacted));
    if (error.cause) errorSlots(error.cause);
  };
  for (const error of testInfo.errors) errorSlots(error);
  for (const annotation of testInfo.annotations) slot(annotation.description, (redacted) => (annotation.description = redacted));
  for (const failure of evidence.failures) slot(failure.message, (redacted) => (failure.message = redacted));
  for (const entry of evidence.observations) slot(entry.observation, (redacted) => (entry.observation = redacted));
  for (const entry of evidence.notJudged) slot(entry.reason, (redacted) => (entry.reason = redacted));
  for (const [i, line] of evidence.sentAgain.entries()) slot(line, (redacted) => (evidence.sentAgain[i] = redacted));
  if (slots.length === 0) return;
  const redacted = await redact(slots.map((s) => s.text));
  for (const [i, s] of slots.entries()) s.set(redacted[i]);
}

/** The record a test attached, if it attached one. */
export function attachedEvidence(attachments: readonly { name: string; body?: Buffer }[]): TestEvidence | undefined {
  const attachment = attachments.find((a) => a.name === EVIDENCE_ATTACHMENT && a.body);
  return attachment ? (JSON.parse(attachment.body!.toString('utf8')) as TestEvidence) : undefined;
}
