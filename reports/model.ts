// The one result type every report format is written from (report.json is this, as is).
import type { Endpoint, Plane, RuleLevel } from '../specs/contract.ts';
import type { Exchange } from '../suites/proxy/recording-proxy.ts';

/** not-run: the run stopped (--max-duration, Ctrl-C, SIGTERM) before the rule's tests ran. */
export type Verdict = 'pass' | 'fail' | 'skipped' | 'not-tested' | 'observed' | 'not-run';
export const VERDICTS: Verdict[] = ['pass', 'fail', 'skipped', 'not-tested', 'observed', 'not-run'];

export interface TestOutcome {
  /** Playwright's stable test id. */
  id: string;
  title: string;
  file: string;
  /** interrupted: stopped while it ran; not-run: the run stopped before it began. */
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not-run';
  /** The failure message (first line first), for failed tests. */
  error?: string;
  /** Why the test was skipped (missing capability, failed precondition…) or did not run. */
  reason?: string;
  /** What the test recorded for unspecified rules. */
  observed: string[];
  /** Ids of the exchanges this test made (see ConformanceReport.exchanges). */
  exchanges: string[];
}

export interface RuleResult {
  id: string;
  level: RuleLevel;
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
}

/** An exchange as the report keeps it: no wall-clock times, so the same run gives the same report. */
export type RecordedExchange = Omit<Exchange, 'startedDateTime' | 'time'>;

/** How the run ended, and what it left on the target. */
export interface RunRecord {
  /** complete: every selected test ran; otherwise the report is partial. */
  status: 'complete' | 'interrupted' | 'timed-out';
  /** Why a partial run stopped. */
  reason?: string;
  profile: string;
  /** What the run's requests created on the target, per endpoint and kind (successful creations). */
  created: Partial<Record<Endpoint, Record<string, number>>>;
  /** What the run's cleanup deleted afterwards, per endpoint and kind. */
  cleanedUp: Partial<Record<Endpoint, Record<string, number>>>;
  /** What is still on the target after the run (no delete operation, or the delete failed). */
  left: Partial<Record<Endpoint, Record<string, number>>>;
}

export interface ConformanceReport {
  tool: { name: string; version: string };
  target: { name: string; kind: string; planes: Endpoint[]; capabilities: string[] };
  seed: string;
  run: RunRecord;
  summary: {
    rules: number;
    /** Rules with at least one test. */
    covered: number;
    coverage: number;
    verdicts: Record<Verdict, number>;
    mustFailures: number;
    shouldFailures: number;
    /** Rules whose verdict differs from the expectations file, when one was given. */
    unexpected?: string[];
    byPlane: Record<string, { rules: number; covered: number; verdicts: Record<Verdict, number> }>;
  };
  rules: RuleResult[];
  /** Tests tagged with ids that are not in the catalogue: a defect of the suites. */
  unknownRuleTags: { tag: string; tests: string[] }[];
  exchanges: Record<string, RecordedExchange>;
}

export function emptyVerdicts(): Record<Verdict, number> {
  return { pass: 0, fail: 0, skipped: 0, 'not-tested': 0, observed: 0, 'not-run': 0 };
}
