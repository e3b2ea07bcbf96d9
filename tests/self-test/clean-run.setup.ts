// The suites pass against a broken target that breaks nothing (clean-run.ts): the run the
// broken-target and variant lanes lean on, checked as a test of its own.
import { expect, test } from '@playwright/test';
import { cleanRun } from './clean-run.ts';

test("the suites pass against the broken targets' front when it breaks nothing", async () => {
  test.setTimeout(300_000);
  const { failed, stdout } = await cleanRun();
  expect(failed, stdout).toEqual([]);
});
