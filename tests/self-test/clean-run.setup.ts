// The suites against a broken target that breaks nothing: every rule the suites test must pass
// through the front, and the run's exchanges tell each mutation which files it can reach
// (affected.ts). The broken-target self-tests read the trial groups made from it (TRIAL_GROUPS, run-cli.ts).
import { expect, test } from '@playwright/test';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startBrokenTarget } from './broken-target.ts';
import { mutationsOfThisRun, groupMutations, saveTrialGroups } from './trial-groups.ts';
import { CLEAN_RUN, conformanceRun, failedRules, MUTATION_SLICE, TRIAL_GROUPS, SCORE_DIR, VARIANT_SCORE_DIR } from './run-cli.ts';

test("the suites pass against the broken targets' front when it breaks nothing", async () => {
  test.setTimeout(300_000);
  // A score is of this run's lanes only.
  rmSync(SCORE_DIR, { recursive: true, force: true });
  rmSync(VARIANT_SCORE_DIR, { recursive: true, force: true });
  const target = await startBrokenTarget({ breaks: [], description: 'nothing' });
  try {
    const planes = ['agent-server', 'platform-api', 'control-plane'].flatMap((plane) => ['--plane', plane]);
    const { report, out, stdout } = await conformanceRun(['--target', target.config, ...target.args, '--ignore-files', 'rate-limits', ...planes], target.env);
    expect(failedRules(report), stdout).toEqual([]);
    mkdirSync(dirname(CLEAN_RUN), { recursive: true });
    copyFileSync(join(out, 'report.json'), CLEAN_RUN);
    saveTrialGroups(groupMutations(mutationsOfThisRun(MUTATION_SLICE), report), TRIAL_GROUPS);
  } finally {
    await target.close();
  }
});
