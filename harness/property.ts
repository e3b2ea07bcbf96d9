// fast-check settings shared by the suites: the run's seed fixes every property, and a
// failure prints its seed, path and shrunk counterexample, to replay with
// `run --replay-property <seed>:<path>`. A failing property stops shrinking in time to say so
// before its test's timeout: a timed-out test blames every rule it is tagged with, a counterexample only its own.
// A run that met a transient fault it could not be judged past (harness/retry.ts) ends the
// property at once, with that fault: no counterexample, since the target's answer is unknown.
import { test } from '@playwright/test';
import fc from 'fast-check';
import { attributeFailure, quietly } from './checks/attribution.ts';
import { wasNotJudged } from './retry.ts';
import { planOf } from './conformance-options.ts';

/** A 32-bit seed derived from the run's seed and the current test's title. */
function seedFor(runSeed: string, title: string): number {
  let hash = 2166136261;
  for (const ch of `${runSeed}:${title}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619);
  return hash | 0;
}

let testStarted = performance.now();

/** Called as each test starts (an automatic fixture), to know how much of its timeout is left. */
export function markTestStart(): void {
  testStarted = performance.now();
}

/** The test's time left now (waits on a real-time target extend it), less a tenth of its timeout (at least 2 s) to report in. */
function timeLeftMs(): number {
  const { timeout } = test.info();
  if (timeout === 0) return Number.POSITIVE_INFINITY;
  return timeout - (performance.now() - testStarted) - Math.max(2_000, timeout / 10);
}

/**
 * Once a run has failed, shrinking stops when the test's time runs short: fast-check then reports
 * the counterexample shrunk so far. Before any failure, the test's own timeout applies.
 */
function shrinkWithinTheTest<T>(unjudged: { error?: Error }): fc.Plugin<T> {
  return () => {
    let failed = false;
    const interrupted = () => new fc.PreconditionFailure(true);
    return {
      // assertProperty takes async properties only, whose runs answer promises.
      decorateRun: (nestedRun) => (value) => {
        if (unjudged.error) return Promise.resolve(interrupted());
        if (!failed) {
          return Promise.resolve(nestedRun(value)).then((outcome) => {
            if (outcome !== null && !fc.PreconditionFailure.isFailure(outcome)) {
              failed = true;
              if (wasNotJudged(outcome.error)) unjudged.error = outcome.error as Error;
            }
            return outcome;
          });
        }
        const left = timeLeftMs();
        if (left <= 0) return Promise.resolve(interrupted());
        if (left === Number.POSITIVE_INFINITY) return Promise.resolve(nestedRun(value));
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<fc.PreconditionFailure>((resolve) => {
          timer = setTimeout(() => resolve(interrupted()), left);
        });
        return Promise.race([nestedRun(value), deadline]).finally(() => clearTimeout(timer));
      },
    };
  };
}

function propertyParameters<T>(unjudged: { error?: Error }, overrides: fc.Parameters<T> = {}): fc.Parameters<T> {
  // A property given its own seed needs no run: the project's own tests run it.
  const options = overrides.seed === undefined ? planOf(test.info().config).options : undefined;
  const replay = options?.replayProperty;
  const seed = overrides.seed ?? replay?.seed ?? seedFor(options!.seed, test.info().titlePath.join(' › '));
  test.info().annotations.push({ type: 'property-seed', description: String(seed) });
  return { seed, path: replay?.path, plugins: [shrinkWithinTheTest<T>(unjudged)], ...overrides };
}

/** fc.assert with the run's seed; a failure is attributed to the rule its counterexample broke. */
export async function assertProperty<Ts>(property: fc.IAsyncProperty<Ts>, overrides: fc.Parameters<Ts> = {}): Promise<void> {
  const unjudged: { error?: Error } = {};
  try {
    await quietly(() => fc.assert(property, propertyParameters(unjudged, overrides)));
  } catch (error) {
    if (unjudged.error) throw unjudged.error;
    attributeFailure(error);
    throw error;
  }
}
