// The one result type every report format is written from (report.json is this, as is; its
// JSON Schema is specs/schemas/report.schema.json).
import type { Endpoint, Plane, RuleLevel, RuleSource } from '../specs/contract.ts';
import type { Retries } from './retries.ts';
import type { Exchange, SkipKind } from '../specs/evidence-protocol.ts';

/**
 * The report format's version: a reader refuses another major version (1.1 added the rules' sources;
 * 1.2 the kinds of skips, unexplained preconditions, the MUST rules not judged, what narrowed a run,
 * webhook deliveries among the exchanges and the exchange a failure names; 1.3 the lines that reproduce a failure,
 * and runs that stopped before any test; 1.4 the requests sent again, and each exchange's attempt;
 * 1.5 why they were sent again).
 */
export const REPORT_VERSION = '1.5';

// The kinds of skip are the protocol's (specs/evidence-protocol.ts); the report's readers take them from here.
export type { SkipKind };

/**
 * error: the target could not be reached for the rule's tests (no finding either way);
 * not-run: the run stopped (--max-duration, Ctrl-C, SIGTERM) before the rule's tests ran, or before any test;
 * out-of-scope: the rule's plane was not part of the run (--plane, or no URL for it).
 */
export type Verdict = 'pass' | 'fail' | 'error' | 'skipped' | 'not-tested' | 'observed' | 'not-run' | 'out-of-scope';

export interface TestOutcome {
  /** Playwright's stable test id. */
  id: string;
  title: string;
  file: string;
  /**
   * error: failed because the target could not be reached (a transport error);
   * interrupted: stopped while it ran; not-run: the run stopped before it began.
   */
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not-run' | 'error';
  /** The failure message (first line first), for failed tests. */
  error?: string;
  /** Why the test was skipped (missing capability, failed precondition…) or did not run. */
  reason?: string;
  /**
   * How a skipped test could not judge its rules (harness/checks/attribution.ts): declared by the
   * target, a failed precondition naming the rules whose failure explains it, or the machine;
   * unclassified: a skip that gave no kind.
   */
  skip?: { kind: SkipKind | 'unclassified'; explainedBy?: string[] };
  /**
   * Set by the report for a failed precondition that no rule of the run explains (none of those it
   * names failed): the skip may hide a finding, so the test counts as an error.
   */
  unexplained?: string;
  /** What the test recorded for unspecified rules. */
  observed: string[];
  /**
   * Ids of the exchanges this test made (see ConformanceReport.exchanges): its requests, then the
   * webhook deliveries its receiver path got (ids webhook:<path>#<n>), by path and in the order each path got them.
   */
  exchanges: string[];
  /**
   * Which of them the failure names (`[exchange <id>]` in its message): the answer or delivery a
   * failed assertion judged, or the step a failed precondition needed.
   */
  failedExchange?: string;
  /** For a test that failed: the lines that reproduce it (reports/reproduce.ts). */
  reproduce?: Reproduction;
}

export interface Reproduction {
  /** The `run --grep` command that reruns this test alone, on the run's target with its seed and profile. */
  command: string;
  /** A curl of the failed exchange's request, each secret an environment variable reference (none for a webhook delivery). */
  curl?: string;
}

export interface RuleResult {
  id: string;
  level: RuleLevel;
  /** spec, service or interpretation (our reading): an interpretation never fails the run. */
  source: RuleSource;
  plane: Plane;
  area: string;
  section: string;
  text: string;
  verdict: Verdict;
  tests: TestOutcome[];
  /** What the target's expectations file says of this rule (only rules it lists). */
  expected?: { verdict: Verdict; reason: string };
  /** False when the verdict differs from the expectations (only with an expectations file). */
  asExpected?: boolean;
  /** The rule's verdict in the baseline report (only with --baseline; 'missing' when it had none). */
  baseline?: Verdict | 'missing';
  /** Why no test checks the rule (not-tested rules), or why none ran (a narrowed run, another shard). */
  reason?: string;
  /** Why no request to a running target can show the rule (the catalogue's `unobservable`). */
  unobservable?: string;
}

/**
 * A MUST rule in scope that got no verdict (skipped, not-run or not-tested). It keeps the run from
 * passing (counted) unless the target declared why (a capability, profile, plane or configuration
 * it lacks), the catalogue marks it unobservable, an expectation names it, or the run was narrowed
 * to leave it out.
 */
export interface NotJudged {
  id: string;
  verdict: Verdict;
  counted: boolean;
  cause: 'declared' | 'unobservable' | 'expected' | 'not-selected' | 'precondition' | 'machine' | 'skipped' | 'untested' | 'stopped';
  why: string;
}

/** How the conformance run ended, and what it left on the target (the report's `run`). */
export interface ConformanceRunOutcome {
  /**
   * complete: every selected test ran; otherwise the report is partial: interrupted (Ctrl-C,
   * SIGTERM), timed-out (--max-duration), target-unreachable (the target stopped answering),
   * not-started (the run stopped before any test: the target was not ready, an input was
   * refused, global setup failed; every rule in scope is not-run).
   */
  status: 'complete' | 'interrupted' | 'timed-out' | 'target-unreachable' | 'not-started';
  /** Why a partial run stopped. */
  reason?: string;
  /** The share of the tests this report holds (run --shard i/n); merge joins the shards' reports. */
  shard?: string;
  /** The options that narrowed what the run selected (--plane, --grep, --grep-invert, --test-list, --shard), as given. */
  narrowed?: string[];
  profile: string;
  /** What the run's requests created on the target, per endpoint and kind (successful creations). */
  created: Partial<Record<Endpoint, Record<string, number>>>;
  /** What the run's cleanup deleted afterwards, per endpoint and kind. */
  cleanedUp: Partial<Record<Endpoint, Record<string, number>>>;
  /** What is still on the target after the run (no delete operation, or the delete failed). */
  left: Partial<Record<Endpoint, Record<string, number>>>;
}

/** A rule whose verdict moved between two reports. */
export interface Change {
  id: string;
  level: RuleLevel;
  before: Verdict | 'missing';
  after: Verdict | 'missing';
}

/** The run's outcome for CI: the exit code and why, which every format states the same way. */
export interface Gate {
  exitCode: number;
  passed: boolean;
  /** Every reason that applies, the one that decides the exit code first. */
  reasons: string[];
}

export interface ConformanceReport {
  reportVersion: string;
  tool: { name: string; version: string };
  target: { name: string; kind: string; planes: Endpoint[]; capabilities: string[] };
  seed: string;
  run: ConformanceRunOutcome;
  summary: {
    /** Rules in scope (of the planes the run covered). */
    rules: number;
    /** Rules of planes the run did not cover, counted apart. */
    outOfScope: number;
    /** Rules in scope with at least one test. */
    covered: number;
    coverage: number;
    verdicts: Record<Verdict, number>;
    mustFailures: number;
    /** SHOULD rules of the spec or the service that failed (warnings). */
    shouldFailures: number;
    /** Interpretations (our reading, not stated by the spec or the service) that failed: warnings, apart. */
    interpretationFailures: number;
    /** MUST rules in scope with no verdict, each with why and whether it keeps the run from passing. */
    mustNotJudged: NotJudged[];
    /** Rules whose verdict differs from the expectations file, when one was given. */
    unexpected?: string[];
    /** The requests the run's client sent again (a transient fault, a rate limit), when there were any. */
    retries?: Retries;
    /**
     * Against an earlier report (--baseline): rules that failed now and did not, or are gone
     * (regressions); that failed and pass (fixes); that passed and have no verdict now (lost).
     */
    baseline?: { file: string; regressions: Change[]; fixes: Change[]; lost: Change[] };
    gate: Gate;
    byPlane: Record<string, { rules: number; covered: number; verdicts: Record<Verdict, number> }>;
    /** The rules in scope per source, so interpretations are counted apart. */
    bySource: Record<RuleSource, { rules: number; verdicts: Record<Verdict, number> }>;
  };
  rules: RuleResult[];
  /** Tests tagged with ids that are not in the catalogue: a defect of the suites. */
  unknownRuleTags: { tag: string; tests: string[] }[];
  exchanges: Record<string, RecordedExchange>;
}

/**
 * An exchange as the report keeps it: no wall-clock times and no target address (a simulator's
 * port changes from run to run), so the same run gives the same report. The HAR has them.
 */
export type RecordedExchange = Omit<Exchange, 'startedDateTime' | 'time' | 'base'>;

export function emptyVerdicts(): Record<Verdict, number> {
  return { pass: 0, fail: 0, error: 0, skipped: 0, 'not-tested': 0, observed: 0, 'not-run': 0, 'out-of-scope': 0 };
}
