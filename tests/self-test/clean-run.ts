// The clean run: the suites against a broken target that breaks nothing. Every rule the suites
// test must pass through the front, and the run's exchanges tell each mutation and variant which
// tests it can reach (affected.ts). It is made once per `playwright test`, by whichever self-test
// needs it first, while the others wait: the broken-target and variant lanes then start beside the
// project's other tests. A project dependency would hold them until every test of the projects
// before it had ended, and leave the machine half idle at each such step.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import { startBrokenTarget } from './broken-target.ts';
import { CLEAN_RUN, conformanceRun, failedRules, INVOCATION_VARIABLE, MUTATION_SLICE, SCORE_DIR, TRIAL_GROUPS, VARIANT_SCORE_DIR } from './run-cli.ts';
import { groupMutations, mutationsOfThisRun, saveTrialGroups } from './trial-groups.ts';

/** How the clean run ended: the rules it failed (none, for a run the self-tests can lean on) and what it printed. */
interface CleanRunOutcome {
  failed: string[];
  stdout: string;
  error?: string;
}

/** The clean run of this `playwright test`: made here if no other worker has begun it, else waited for. */
export async function cleanRun(): Promise<CleanRunOutcome & { report: ConformanceReport }> {
  const invocation = process.env[INVOCATION_VARIABLE] ?? 'alone';
  const mine = join(dirname(CLEAN_RUN), `made-by-${invocation}`);
  const outcomeFile = join(mine, 'outcome.json');
  mkdirSync(dirname(CLEAN_RUN), { recursive: true });
  let first = true;
  try {
    // Atomic: one worker makes the folder, and with it the run.
    mkdirSync(mine);
  } catch {
    first = false;
  }
  if (first) writeFileSync(outcomeFile, JSON.stringify(await makeCleanRun()));
  while (!existsSync(outcomeFile)) await new Promise((resolve) => setTimeout(resolve, 500));
  const outcome = JSON.parse(readFileSync(outcomeFile, 'utf8')) as CleanRunOutcome;
  if (outcome.error) throw new Error(`the clean run could not be made: ${outcome.error}`);
  return { ...outcome, report: JSON.parse(readFileSync(CLEAN_RUN, 'utf8')) as ConformanceReport };
}

async function makeCleanRun(): Promise<CleanRunOutcome> {
  // A score is of this run's lanes only.
  rmSync(SCORE_DIR, { recursive: true, force: true });
  rmSync(VARIANT_SCORE_DIR, { recursive: true, force: true });
  try {
    const target = await startBrokenTarget({ breaks: [], description: 'nothing' });
    try {
      const planes = ['agent-server', 'platform-api', 'control-plane'].flatMap((plane) => ['--plane', plane]);
      const { report, out, stdout } = await conformanceRun(['--target', target.config, ...target.args, '--ignore-files', 'rate-limits', ...planes], target.env);
      copyFileSync(join(out, 'report.json'), CLEAN_RUN);
      saveTrialGroups(groupMutations(mutationsOfThisRun(MUTATION_SLICE), report), TRIAL_GROUPS);
      return { failed: failedRules(report), stdout };
    } finally {
      await target.close();
    }
  } catch (error) {
    return { failed: [], stdout: '', error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
