// Principle 7: a suite is only as good as what it catches. Each deliberately broken target
// must fail exactly the rules its mutation breaks, with the exchange that shows it. Mutations
// are tried in groups (trial-groups.ts): one broken target and one conformance run per group, each
// mutation applied to the tests it can reach; a failing rule belongs to the mutation whose
// tests failed it, and a failure in no mutation's tests is an error of the group.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { planeOf } from '../../specs/contract.ts';
import type { ConformanceReport, RuleResult } from '../../reports/conformance-report.ts';
import { startBrokenTarget, type Mutation } from './broken-target.ts';
import { recordingKey } from './affected.ts';
import { groupTrials, lanesOf, loadTrialGroups, mutationsOfThisRun, type Group, type Trial } from './trial-groups.ts';
import { cleanRun } from './clean-run.ts';
import { conformanceRun, passedOfNotJudged, TRIAL_GROUPS, SCORE_DIR, type TrialOutcome } from './run-cli.ts';

/** Playwright tests the groups are dealt to: the project's workers take them in parallel. */
const LANES = 6;

test.describe.configure({ mode: 'parallel' });

const sameRules = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
const failing = (rule: RuleResult) => rule.tests.filter((t) => t.status === 'failed' || t.status === 'timedOut');

/** The rules a trial failed: those with a failing test among its tests (all of them for a mutation tried alone). */
function failedBy(report: ConformanceReport, group: Group, trial: Trial): RuleResult[] {
  return report.rules.filter((r) => r.verdict === 'fail' && failing(r).some((t) => group.alone || trial.tests.has(t.id)));
}

/**
 * Runs the suites (those of the group's test list, or `selection`) against one broken target for the group, and checks each
 * trial. A trial that left tests to the others of its group and failed only some of its rules goes to `again`, unjudged.
 */
async function tryGroup(group: Group, outcomes: TrialOutcome[], selection?: string[], again: Trial[] = []): Promise<void> {
  const names = group.trials.map((t) => t.name).join(', ');
  if (group.testList.length === 0 && !selection) {
    for (const trial of group.trials) {
      outcomes.push({ name: trial.name, breaks: trial.mutation.breaks, failed: [], killed: false });
      expect.soft(trial.tests.size, `${trial.name}: its mutation changes no exchange of the clean run, so no test can catch it`).toBeGreaterThan(0);
    }
    return;
  }
  const byRecording = new Map<string, Mutation>(group.trials.flatMap((trial) => [...trial.recordings].map((id) => [id, trial.mutation] as const)));
  const target = await startBrokenTarget(group.alone ? group.trials[0].mutation : (id) => (id === undefined ? undefined : byRecording.get(recordingKey(id))));
  try {
    const list = join(mkdtempSync(join(tmpdir(), 'apc-test-list-')), 'tests.txt');
    writeFileSync(list, `${group.testList.join('\n')}\n`);
    const args = ['--target', target.config, ...target.args, ...(selection ?? ['--test-list', list])];
    const { report, code, stdout } = await conformanceRun(args, target.env);
    const tail = stdout.split('\n').slice(-40).join('\n');
    for (const trial of group.trials) {
      // A rate-limit mutation alone runs the rate-limit suites, which the clean run leaves out.
      if (!group.alone)
        expect.soft(trial.tests.size, `${trial.name}: its mutation changes no exchange of the clean run, so no test can catch it`).toBeGreaterThan(0);
      const failed = failedBy(report, group, trial);
      const passedOnNothing = passedOfNotJudged(report, trial.mutation);
      const missed = trial.mutation.breaks.filter((id) => !failed.some((r) => r.id === id));
      if (trial.whole && missed.length > 0 && failed.every((r) => trial.mutation.breaks.includes(r.id)) && passedOnNothing.length === 0) {
        console.log(`${trial.name}: ${missed.join(', ')} not failed on the ${trial.tests.size} tests left to it; tried again on all ${trial.whole.tests.size}`);
        again.push({ ...trial, tests: trial.whole.tests, recordings: trial.whole.recordings, whole: undefined });
        continue;
      }
      await test.step(`${trial.name}: ${trial.mutation.description} fails exactly ${trial.mutation.breaks.join(', ')}`, () => {
        outcomes.push({
          name: trial.name,
          breaks: trial.mutation.breaks,
          failed: failed.map((r) => r.id),
          killed:
            sameRules(
              failed.map((r) => r.id),
              trial.mutation.breaks,
            ) && passedOnNothing.length === 0,
        });
        expect
          .soft(failed.map((r) => r.id).sort(), `${trial.name}: the rules failed by its ${trial.tests.size} tests\n${tail}`)
          .toEqual([...trial.mutation.breaks].sort());
        expect.soft(passedOnNothing, `${trial.name}: rules that passed, though their evidence is a read it breaks (its notJudged)`).toEqual([]);
        for (const rule of failed) {
          expect
            .soft(
              failing(rule).some((t) => t.exchanges.length > 0),
              `${trial.name}: ${rule.id} shows the recorded exchanges`,
            )
            .toBe(true);
        }
      });
    }
    const owned = new Set(group.trials.flatMap((trial) => failedBy(report, group, trial).map((r) => r.id)));
    const stray = report.rules.filter((r) => r.verdict === 'fail' && !owned.has(r.id)).map((r) => `${r.id}: ${failing(r)[0]?.title}`);
    expect.soft(stray, `failures in tests no mutation of [${names}] was tried on`).toEqual([]);
    // The exit code says what the report says: a MUST rule failed or went unjudged (1), else one only this
    // machine could not check, say a rate-limit window it could not fill in time (2), else 0.
    const mustBroken = report.rules.some((r) => r.verdict === 'fail' && r.level === 'MUST');
    const unjudged = report.summary.mustNotJudged.filter((n) => n.counted);
    const expected = mustBroken || unjudged.some((n) => n.cause !== 'machine') ? 1 : unjudged.length > 0 ? 2 : 0;
    const why = unjudged.map((n) => `${n.id} (${n.cause}): ${n.why}`).join('\n');
    expect.soft(code, `[${names}] exit code: 1 when a MUST rule fails or goes unjudged, else 0\n${why}`).toBe(expected);
  } finally {
    await target.close();
  }
}

const only = process.env.APC_MUTATION;

if (only) {
  // APC_MUTATION=<name>: that mutation alone against every suite of its plane, worth it for a new
  // mutation: it shows what reaches other tests through the state it leaves behind.
  test(`${only}: alone against every suite of its plane`, async () => {
    test.setTimeout(10 * 60_000);
    const mutation = mutationsOfThisRun('all')[only];
    expect(mutation, `no mutation is named ${only}`).toBeDefined();
    const plane = planeOf(mutation.endpoint ?? 'agent-server');
    await tryGroup({ trials: [{ name: only, mutation, tests: new Set(), recordings: new Set() }], testList: [], alone: true }, [], ['--plane', plane]);
  });
}

for (let lane = 0; lane < (only ? 0 : LANES); lane++) {
  test(`lane ${lane + 1} of ${LANES}: each broken target fails exactly the rules its mutation breaks`, async () => {
    // A lane shares two cores with the other lanes and the real targets: its limit only catches a hang.
    test.setTimeout(45 * 60_000);
    const { failed, report: clean } = await cleanRun();
    expect(failed, 'rules the clean run failed: no mutation can be judged against them').toEqual([]);
    const groups = lanesOf(loadTrialGroups(TRIAL_GROUPS), LANES)[lane];
    const outcomes: TrialOutcome[] = [];
    const again: Trial[] = [];
    const tryEach = async (groups: Group[]) => {
      for (const group of groups) {
        await test.step(`a broken target for ${group.trials.map((t) => t.name).join(', ')}`, () => tryGroup(group, outcomes, undefined, again));
      }
    };
    try {
      await tryEach(groups);
      // Tried again whole, these share no test: they are judged as any other trial.
      if (again.length > 0) await tryEach(groupTrials(again.splice(0), clean));
    } finally {
      // The mutation score (mutation-score.test.ts) adds up every lane's outcomes.
      mkdirSync(SCORE_DIR, { recursive: true });
      writeFileSync(join(SCORE_DIR, `lane-${lane + 1}.json`), JSON.stringify(outcomes, null, 1));
    }
  });
}
