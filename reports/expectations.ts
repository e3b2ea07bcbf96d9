// Per-target expectations (as web-platform-tests keeps them): only the rules a target is
// known not to pass, each with the reason. A run is judged by its unexpected results:
// a listed rule that now passes is as much a change as an unlisted rule that fails.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Verdict } from './model.ts';

export interface Expectation {
  rule: string;
  verdict: Verdict;
  reason: string;
}

export interface ExpectationsFile {
  target: string;
  expected: Expectation[];
}

export function loadExpectations(path: string): ExpectationsFile {
  const parsed = parseYaml(readFileSync(path, 'utf8')) as Partial<ExpectationsFile> | null;
  if (!parsed || !Array.isArray(parsed.expected)) throw new Error(`${path}: expected a YAML object with an 'expected:' list`);
  for (const [i, e] of parsed.expected.entries()) {
    if (typeof e?.rule !== 'string' || typeof e.reason !== 'string' || !e.reason.trim()) {
      throw new Error(`${path}: expected[${i}] needs a rule and a reason`);
    }
    if (!['fail', 'skipped', 'not-tested', 'observed', 'pass'].includes(e.verdict)) throw new Error(`${path}: expected[${i}].verdict '${String(e.verdict)}' is not a verdict`);
  }
  return { target: parsed.target ?? path, expected: parsed.expected };
}

/** Whether a verdict is what the expectations say; unlisted rules are expected not to fail. */
export function isExpected(verdict: Verdict, expectation: Expectation | undefined): boolean {
  return expectation ? verdict === expectation.verdict : verdict !== 'fail';
}
