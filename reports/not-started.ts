// The report of a run that stopped before any test: a target that is not ready (preflight), an
// input refused, a global setup that failed, suites that did not start. It is written like any
// other, so that a CI page shows junit.xml and summary.md saying why, and `merge` finds the
// shard's report.json: every rule in scope is not-run, and the gate exits 2 with the reason.
import { contract, type Plane } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import type { ConformanceReport } from './conformance-report.ts';

export interface NotStarted {
  /** Why no test ran, as one line a CI log can show. */
  reason: string;
  target: ConformanceReport['target'];
  seed: string;
  profile: string;
  tool: ConformanceReport['tool'];
  /** The planes the run was to cover. */
  planes: readonly Plane[];
  /** The options that narrowed the selection, as given (--plane, --grep, --shard…). */
  narrowed?: string[];
  /** run --shard i/n: merge identifies the shard by it. */
  shard?: string;
}

export function notStartedReport(input: NotStarted): ConformanceReport {
  return buildReport({
    rules: contract().rules,
    tests: [],
    exchanges: [],
    target: input.target,
    seed: input.seed,
    tool: input.tool,
    run: {
      status: 'not-started',
      reason: input.reason,
      profile: input.profile,
      ...(input.shard ? { shard: input.shard } : {}),
      ...(input.narrowed?.length ? { narrowed: input.narrowed } : {}),
      created: {},
      cleanedUp: {},
      left: {},
    },
    scope: [...input.planes],
  });
}
