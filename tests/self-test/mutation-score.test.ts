// The self-tests' two scores, added up over their lanes: how many mutations were killed (failed
// exactly the rules they break) and which rules the killed ones cover; how many conformant
// variants passed (failed no MUST rule). Green means conformant, and red non-conformant.
import { expect, test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contract } from '../../specs/contract.ts';
import { MUTATION_SLICE, SCORE_DIR, type TrialOutcome, VARIANT_SCORE_DIR } from './run-cli.ts';
import type { VariantOutcome } from './variants/variant.ts';

/** The score below which CI fails: every mutation tried must be killed, every variant must pass. */
const FLOOR = 1;

function outcomesIn<T>(dir: string, what: string): T[] {
  expect(existsSync(dir), `the ${what} lanes wrote no outcomes`).toBe(true);
  const outcomes = readdirSync(dir).flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as T[]);
  expect(outcomes.length, `${what} tried`).toBeGreaterThan(0);
  return outcomes;
}

test('the scores: every mutation tried fails exactly the rules it breaks, every conformant variant fails no MUST rule', () => {
  const outcomes = outcomesIn<TrialOutcome>(SCORE_DIR, 'broken-target');
  const variants = outcomesIn<VariantOutcome>(VARIANT_SCORE_DIR, 'conformant-variant');
  const killed = outcomes.filter((o) => o.killed);
  const passed = variants.filter((v) => v.passed);
  const covered = new Set(killed.flatMap((o) => o.breaks));
  const byLevel = (level: string) => [...covered].filter((id) => contract().rule(id)?.level === level).length;
  const score = killed.length / outcomes.length;
  const variantScore = passed.length / variants.length;
  const slice = MUTATION_SLICE === 'all' ? 'every mutation' : `slice ${MUTATION_SLICE} of the mutations; npm run test:mutations tries all`;
  console.log(
    `${passed.length}/${variants.length} conformant variants pass, ${killed.length}/${outcomes.length} mutations killed (${slice}; ` +
      `${(100 * variantScore).toFixed(1)}% and ${(100 * score).toFixed(1)}%, floor ${100 * FLOOR}%); ` +
      `the killed mutations fail ${covered.size} rules (${byLevel('MUST')} MUST, ${byLevel('SHOULD')} SHOULD)`,
  );
  const failing = variants
    .filter((v) => !v.passed)
    .map(
      (v) =>
        `${v.name}: MUST failed ${v.mustFailed.join(', ') || 'none'}; errors ${v.errors.join(', ') || 'none'}; not judged ${v.notJudged.join(', ') || 'none'}; not passed ${v.notPassed.join(', ') || 'none'}`,
    );
  expect(variantScore, `conformant variants that fail:\n${failing.join('\n')}`).toBeGreaterThanOrEqual(FLOOR);
  const survived = outcomes.filter((o) => !o.killed).map((o) => `${o.name}: breaks ${o.breaks.join(', ')}, failed ${o.failed.join(', ') || 'nothing'}`);
  expect(score, `survivors:\n${survived.join('\n')}`).toBeGreaterThanOrEqual(FLOOR);
});
