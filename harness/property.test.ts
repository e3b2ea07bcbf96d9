// The suites' property runner: a failing property whose shrinking would outlast its test stops in
// time, so that it names its counterexample's rule instead of timing out and blaming every tagged rule.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { forRule } from './checks/attribution.ts';
import { evidenceOf } from './test-evidence.ts';
import { assertProperty, markTestStart } from './property.ts';
import { notJudged } from './retry.ts';
import { sleep } from './time.ts';

const failedRules = () => evidenceOf(test.info()).failures.map((f) => f.rule);

test('a failure whose shrinking would outlast the test is reported in time, with its rule and a counterexample', async () => {
  test.setTimeout(5_000);
  markTestStart();
  const started = performance.now();
  // Each run takes 100 ms and any array of 4 or more fails: shrinking 200 elements one run at a time takes far longer than 5 s.
  const property = fc.asyncProperty(fc.array(fc.integer(), { minLength: 200, maxLength: 200 }), async (values) => {
    await sleep(100);
    await forRule('RATE-COMBINE', () => expect(values.length).toBeLessThan(4));
  });
  const error = await assertProperty(property, { seed: 1 }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toContain('Counterexample');
  expect(failedRules()).toEqual(['RATE-COMBINE']);
  // The test's timeout less the margin for reporting (2 s of 5), and one run's pause.
  expect(performance.now() - started).toBeLessThan(3_500);
});

test('a run stopped at the deadline stays quiet when it ends later: its failure is no finding of the test it ends in', async () => {
  test.setTimeout(4_000);
  markTestStart();
  let lateRunEnded!: () => void;
  const lateRun = new Promise<void>((resolve) => (lateRunEnded = resolve));
  let runs = 0;
  // The first run fails at once; the first shrinking run outlasts the time left (2 s of 4), then fails another rule.
  const property = fc.asyncProperty(fc.array(fc.integer(), { minLength: 10, maxLength: 10 }), async () => {
    runs += 1;
    if (runs === 1) return forRule('RATE-COMBINE', () => expect(runs).toBe(0));
    if (runs > 2) return;
    await sleep(3_000);
    await forRule('RATE-RETRY-AFTER', () => expect(runs).toBe(0)).finally(lateRunEnded);
  });
  const error = await assertProperty(property, { seed: 1 }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toContain('Counterexample');
  test.setTimeout(60_000);
  await lateRun;
  expect(failedRules()).toEqual(['RATE-COMBINE']);
});

test("before any failure a property is not cut short: waits on a real-time target extend the test's time", async () => {
  test.setTimeout(3_000);
  markTestStart();
  let runs = 0;
  // 40 runs of 100 ms outlast the first 3 s; each run gives the test the time it takes, as Time.allowWall does.
  const property = fc.asyncProperty(fc.integer(), async () => {
    test.info().setTimeout(test.info().timeout + 100);
    await sleep(100);
    runs += 1;
  });
  await assertProperty(property, { seed: 1, numRuns: 40 });
  expect(runs).toBe(40);
});

test('a run that met a transient fault ends the property with that fault, unjudged: no counterexample, no shrinking', async () => {
  markTestStart();
  let runs = 0;
  const property = fc.asyncProperty(fc.array(fc.integer(), { minLength: 5 }), async () => {
    runs++;
    if (runs === 3) throw notJudged('GET /threads was not judged: it met transient faults on all 4 attempts');
  });
  const error = await assertProperty(property, { seed: 1 }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toBe('[transient fault] GET /threads was not judged: it met transient faults on all 4 attempts');
  expect(runs).toBe(3);
  expect(failedRules()).toEqual([]);
  expect(evidenceOf(test.info()).unreachable, 'its test says nothing about its rules').toBe(true);
});
