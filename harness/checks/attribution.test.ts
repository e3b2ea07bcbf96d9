// Each rule of a test is judged apart: a failed check of one rule fails that rule, and the test
// goes on to judge the others; the failures are thrown together when the test ends.
import { expect, test } from '@playwright/test';
import { evidenceOf } from '../test-evidence.ts';
import { endRuleChecks, forRule, startRuleChecks } from './attribution.ts';

const failedRules = () => evidenceOf(test.info()).failures.map((f) => f.rule);

test('a failed check of one rule fails that rule alone, and the checks of the other rules still run', async () => {
  startRuleChecks();
  await forRule('R-SHOULD', () => expect(1, 'the history').toBe(2));
  let judged = false;
  await forRule('R-MUST', () => {
    judged = true;
  });
  expect(judged).toBe(true);
  expect(failedRules()).toEqual(['R-SHOULD']);
  // The test's end throws what failed, and says that the body ran to its end judging each rule apart.
  expect(() => endRuleChecks(test.info())).toThrow(/^R-SHOULD: .*the history/s);
  expect(evidenceOf(test.info()).judgedApart).toBe(true);
  // Thrown once: the next test starts clean.
  expect(() => endRuleChecks(test.info())).not.toThrow();
});

test('several failed rules are thrown together, each with its own message', async () => {
  startRuleChecks();
  await forRule('R-ONE', () => expect('a', 'first').toBe('b'));
  await forRule('R-TWO', async () => expect(await Promise.resolve(1), 'second').toBe(3));
  expect(failedRules()).toEqual(['R-ONE', 'R-TWO']);
  let thrown: Error | undefined;
  try {
    endRuleChecks(test.info());
  } catch (error) {
    thrown = error as Error;
  }
  expect(thrown?.message).toMatch(/^R-ONE: [\s\S]*first[\s\S]*\n\nR-TWO: [\s\S]*second/);
});
