// The mutation score of the broken-target self-test, added up over its lanes: how many mutations
// were killed (failed exactly the rules they break) and which rules the killed ones cover.
import { expect, test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contract } from '../../specs/contract.ts';
import { MUTATION_SLICE, SCORE_DIR, type TrialOutcome } from './run-cli.ts';

/** The score below which CI fails: every mutation tried must be killed. */
const FLOOR = 1;

test('the mutation score: every mutation tried fails exactly the rules it breaks', () => {
  expect(existsSync(SCORE_DIR), 'the broken-target lanes wrote no outcomes').toBe(true);
  const outcomes = readdirSync(SCORE_DIR).flatMap((file) => JSON.parse(readFileSync(join(SCORE_DIR, file), 'utf8')) as TrialOutcome[]);
  expect(outcomes.length, 'mutations tried').toBeGreaterThan(0);
  const killed = outcomes.filter((o) => o.killed);
  const covered = new Set(killed.flatMap((o) => o.breaks));
  const byLevel = (level: string) => [...covered].filter((id) => contract().rule(id)?.level === level).length;
  const score = killed.length / outcomes.length;
  console.log(
    `Mutation score (${MUTATION_SLICE === 'all' ? 'every mutation' : `slice ${MUTATION_SLICE} of the mutations; npm run test:mutations tries all`}): ${killed.length}/${outcomes.length} killed (${(100 * score).toFixed(1)}%, floor ${100 * FLOOR}%); ` +
      `the killed mutations fail ${covered.size} rules (${byLevel('MUST')} MUST, ${byLevel('SHOULD')} SHOULD)`,
  );
  const survived = outcomes.filter((o) => !o.killed).map((o) => `${o.name}: breaks ${o.breaks.join(', ')}, failed ${o.failed.join(', ') || 'nothing'}`);
  expect(score, `survivors:\n${survived.join('\n')}`).toBeGreaterThanOrEqual(FLOOR);
});
