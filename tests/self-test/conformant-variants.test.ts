// Principle 7, the other way: red means non-conformant. Each conformant variant (variants/) is a
// target that differs from the simulator only where the spec leaves a choice open, and must fail
// no MUST rule, leave no rule in error, and leave no MUST rule unjudged for a reason it did not
// declare. A variant is tried on every test it can reach (replaying the clean run through it,
// affected.ts); variants whose tests are apart share one target and one run, as mutations do. One
// that declares something in its config, or reacts to what the recordings redact (API keys), gets a
// run of its own over its whole plane; one that reacts to what they leave out (the rate-limit suites'
// bulk traffic), a run of its own over those suites and the other tests it reaches.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { planeOf, type Plane } from '../../specs/contract.ts';
import type { ConformanceReport, RuleResult } from '../../reports/conformance-report.ts';
import { reach, recordingKey } from './affected.ts';
import { startBrokenTarget, type Mutation } from './broken-target.ts';
import { groupTrials, lanesOf, RATE_LIMIT_FILES, rateLimitFiles, testLines } from './trial-groups.ts';
import { cleanRun } from './clean-run.ts';
import { conformanceRun, VARIANT_SCORE_DIR } from './run-cli.ts';
import { VARIANTS } from './variants/index.ts';
import { asMutation, type Variant, type VariantOutcome } from './variants/variant.ts';

/** Playwright tests the variants are dealt to: the project's workers take them in parallel. */
const LANES = 4;

test.describe.configure({ mode: 'parallel' });

interface VariantTrial {
  name: string;
  variant: Variant;
  mutation: Mutation;
  /** The tests of the clean run it reaches; a variant run alone is judged on every test of its run. */
  tests: Set<string>;
  recordings: Set<string>;
}

/** A run for variants: those apart, each routed to its tests, or one alone, applied to every request of its run. */
interface VariantGroup {
  trials: VariantTrial[];
  /** Playwright --test-list lines: the tests to run, or whole files. */
  testList: string[];
  /** One variant applied to every request of the run. */
  alone: boolean;
}

/** Every spec file of a plane: those of the clean run, and the rate-limit suites it leaves out. */
function planeFiles(clean: ConformanceReport, plane: Plane): string[] {
  const files = new Set([...clean.rules.flatMap((r) => r.tests.map((t) => t.file)), ...RATE_LIMIT_FILES].filter((f) => f.startsWith(`${plane}/`)));
  return [...files].sort().map((file) => `[${plane}] › ${file}`);
}

function planVariants(clean: ConformanceReport): VariantGroup[] {
  const alone: VariantGroup[] = [];
  const apart: VariantTrial[] = [];
  const lineOf = testLines(clean);
  // APC_VARIANTS=<regex>: only the variants whose names match (a quicker loop while writing them).
  const names = new RegExp(process.env.APC_VARIANTS ?? '');
  for (const [name, variant] of Object.entries(VARIANTS)
    .filter(([n]) => names.test(n))
    .sort(([a], [b]) => a.localeCompare(b))) {
    const mutation = asMutation(variant);
    const trial = { name, variant, mutation, ...reach(mutation, clean) };
    const plane = planeOf(mutation.endpoint ?? 'agent-server');
    if (variant.declares || variant.simulator || mutation.keyedOnSecrets || mutation.deploymentConfig)
      alone.push({ trials: [trial], testList: planeFiles(clean, plane), alone: true });
    // Its bulk traffic is past the recording: the rate-limit suites whole, and of the other tests those the replay reaches.
    else if (mutation.rateLimits)
      alone.push({ trials: [trial], testList: [...[...trial.tests].map((id) => lineOf.get(id)!), ...rateLimitFiles(plane)], alone: true });
    else apart.push(trial);
  }
  const byName = new Map(apart.map((t) => [t.name, t]));
  const grouped = groupTrials(apart, clean).map((g) => ({
    trials: g.trials.map((t) => byName.get(t.name)!),
    testList: [...new Set(g.trials.flatMap((t) => [...t.tests].map((id) => lineOf.get(id)!)))],
    alone: false,
  }));
  return [...alone, ...grouped];
}

/** What a variant's tests show: the MUST rules failed, the rules in error, the MUST rules left unjudged undeclared. */
function judge(report: ConformanceReport, trial: VariantTrial, alone: boolean): VariantOutcome {
  const mine = (rule: RuleResult, status: (s: string) => boolean) => rule.tests.some((t) => status(t.status) && (alone || trial.tests.has(t.id)));
  const failed = (r: RuleResult) => r.verdict === 'fail' && mine(r, (s) => s === 'failed' || s === 'timedOut');
  const mustFailed = report.rules.filter((r) => failed(r) && r.level === 'MUST' && r.source !== 'interpretation').map((r) => r.id);
  const shouldFailed = report.rules.filter((r) => failed(r) && r.level !== 'MUST').map((r) => r.id);
  const errors = report.rules
    .filter((r) => r.verdict === 'error' && r.tests.some((t) => (t.status === 'error' || t.unexplained) && (alone || trial.tests.has(t.id))))
    .map((r) => r.id);
  const counted = new Set(report.summary.mustNotJudged.filter((n) => n.counted && n.cause !== 'machine').map((n) => n.id));
  const notJudged = report.rules.filter((r) => counted.has(r.id) && (alone || r.tests.some((t) => trial.tests.has(t.id)))).map((r) => r.id);
  const verdicts = new Map(report.rules.map((r) => [r.id, r.verdict]));
  const notPassed = (trial.variant.passes ?? []).filter((id) => verdicts.get(id) !== 'pass');
  const passed =
    mustFailed.length === 0 && errors.length === 0 && notPassed.length === 0 && (notJudged.length === 0 || trial.variant.leavesUnjudged !== undefined);
  return { name: trial.name, passed, mustFailed, errors, notJudged, notPassed, shouldFailed };
}

async function tryGroup(group: VariantGroup, outcomes: VariantOutcome[]): Promise<void> {
  const { alone } = group;
  const reached = group.trials.filter((t) => alone || t.tests.size > 0);
  for (const trial of group.trials.filter((t) => !reached.includes(t))) {
    // A variant no exchange of the clean run shows differs nowhere a test looks: it passes, and says so.
    outcomes.push({ name: trial.name, passed: true, mustFailed: [], errors: [], notJudged: [], notPassed: [], shouldFailed: [] });
    console.log(`${trial.name}: changes no exchange of the clean run`);
  }
  if (reached.length === 0) return;
  const byRecording = new Map(reached.flatMap((trial) => [...trial.recordings].map((id) => [id, trial.mutation] as const)));
  const route = alone ? reached[0].mutation : (id: string | undefined) => (id === undefined ? undefined : byRecording.get(recordingKey(id)));
  const target = await startBrokenTarget(route, '1', reached[0].variant.declares ?? {}, alone ? reached[0].variant.simulator : undefined);
  try {
    const list = join(mkdtempSync(join(tmpdir(), 'apc-test-list-')), 'tests.txt');
    writeFileSync(list, `${group.testList.join('\n')}\n`);
    const { report, code, stdout } = await conformanceRun(['--target', target.config, ...target.args, '--test-list', list], target.env);
    const tail = stdout.split('\n').slice(-40).join('\n');
    for (const trial of reached) {
      await test.step(`${trial.name}: ${trial.variant.description}`, () => {
        const outcome = judge(report, trial, alone);
        outcomes.push(outcome);
        const failures = report.rules.filter((r) => outcome.mustFailed.includes(r.id) || outcome.errors.includes(r.id));
        const why = failures.map(
          (r) => `${r.id} (${r.verdict}): ${r.tests.find((t) => t.error || t.unexplained)?.error?.split('\n')[0] ?? r.tests[0]?.unexplained ?? ''}`,
        );
        expect
          .soft(outcome.mustFailed, `${trial.name}: MUST rules failed by a target the spec allows (${trial.variant.allowedBy})\n${why.join('\n')}\n${tail}`)
          .toEqual([]);
        expect.soft(outcome.errors, `${trial.name}: rules its tests could not judge\n${why.join('\n')}`).toEqual([]);
        if (!trial.variant.leavesUnjudged)
          expect.soft(outcome.notJudged, `${trial.name}: MUST rules left unjudged for a reason the target did not declare`).toEqual([]);
        const notPassed = report.rules
          .filter((r) => outcome.notPassed.includes(r.id))
          .map(
            (r) =>
              `${r.id} (${r.verdict}): ${report.summary.mustNotJudged.find((n) => n.id === r.id)?.why ?? r.tests.find((t) => t.error)?.error?.split('\n')[0] ?? ''}`,
          );
        expect.soft(outcome.notPassed, `${trial.name}: rules it must pass, judged on what the spec shows, that did not\n${notPassed.join('\n')}`).toEqual([]);
      });
    }
    // A run of variants that all passed and declared what they leave out passes the gate.
    if (reached.every((t) => !t.variant.leavesUnjudged) && outcomes.slice(-reached.length).every((o) => o.passed)) {
      const machine = report.summary.mustNotJudged.some((n) => n.counted && n.cause === 'machine');
      expect.soft(code, `[${reached.map((t) => t.name).join(', ')}] exit code of a run of conformant variants`).toBe(machine ? 2 : 0);
    }
  } finally {
    await target.close();
  }
}

for (let lane = 0; lane < LANES; lane++) {
  test(`lane ${lane + 1} of ${LANES}: each conformant variant fails no MUST rule`, async () => {
    // A lane shares two cores with the other lanes and the real targets: its limit only catches a hang.
    test.setTimeout(45 * 60_000);
    const { report: clean, failed } = await cleanRun();
    expect(failed, 'rules the clean run failed: no variant can be judged against them').toEqual([]);
    const groups = lanesOf(planVariants(clean), LANES)[lane];
    const outcomes: VariantOutcome[] = [];
    try {
      for (const group of groups) {
        await test.step(`a target for ${group.trials.map((t) => t.name).join(', ')}`, () => tryGroup(group, outcomes));
      }
    } finally {
      // The score (mutation-score.test.ts) adds up every lane's outcomes.
      mkdirSync(VARIANT_SCORE_DIR, { recursive: true });
      writeFileSync(join(VARIANT_SCORE_DIR, `lane-${lane + 1}.json`), JSON.stringify(outcomes, null, 1));
    }
  });
}
