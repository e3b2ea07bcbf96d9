// fast-check settings shared by the suites: the run's seed fixes every property, and a
// failure prints its seed, path and shrunk counterexample, to replay with
// APC_PROPERTY_REPLAY='{"seed":…,"path":"…"}'.
import { test } from '@playwright/test';
import fc from 'fast-check';
import { attributeFailure, quietly } from './checks/attribution.ts';
import { runContext } from './run-context.ts';

/** A 32-bit seed derived from the run's seed and the current test's title. */
function seedFor(title: string): number {
  let hash = 2166136261;
  for (const ch of `${runContext().seed}:${title}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619);
  return hash | 0;
}

function propertyParameters<T>(overrides: fc.Parameters<T> = {}): fc.Parameters<T> {
  const replay = process.env.APC_PROPERTY_REPLAY ? (JSON.parse(process.env.APC_PROPERTY_REPLAY) as { seed: number; path: string }) : undefined;
  const seed = replay?.seed ?? seedFor(test.info().titlePath.join(' › '));
  test.info().annotations.push({ type: 'property-seed', description: String(seed) });
  return { seed, path: replay?.path, ...overrides };
}

/** fc.assert with the run's seed; a failure is attributed to the rule its counterexample broke. */
export async function assertProperty<Ts>(property: fc.IAsyncProperty<Ts>, overrides: fc.Parameters<Ts> = {}): Promise<void> {
  try {
    await quietly(() => fc.assert(property, propertyParameters(overrides)));
  } catch (error) {
    attributeFailure(error);
    throw error;
  }
}
