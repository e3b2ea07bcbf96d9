// Per-target expectations (as web-platform-tests keeps them): only the rules a target is
// known not to pass, each with the reason. A run is judged by its unexpected results:
// a listed rule that now passes is as much a change as an unlisted rule that fails.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { contract } from '../specs/contract.ts';
import type { Verdict } from './conformance-report.ts';

export interface Expectation {
  rule: string;
  verdict: Verdict;
  reason: string;
}

export interface ExpectationsFile {
  target: string;
  expected: Expectation[];
}

/** Reads an expectations file, refusing what its schema does not allow and rules the catalogue does not have. */
export function loadExpectations(path: string): ExpectationsFile {
  let parsed: unknown;
  const text = readFileSync(path, 'utf8');
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new Error(`${path} is not valid YAML: ${(error as Error).message}`);
  }
  // A file with nothing listed yet (empty, only comments, or `expected:` with its entries commented
  // out) expects nothing, as an empty list does: where a new target's file starts.
  if (parsed === null || parsed === undefined) parsed = { expected: [] };
  else if (typeof parsed === 'object' && 'expected' in parsed && parsed.expected === null) parsed = { ...parsed, expected: [] };
  const violations = contract().validateExpectations(parsed);
  if (violations.length > 0) throw new Error(`${path}: ${violations.map((v) => `${v.at || '(top level)'} ${v.message}`).join('; ')}`);
  const file = parsed as Partial<ExpectationsFile> & { expected: Expectation[] };
  const unknown = file.expected.map((e) => e.rule).filter((id) => !contract().rule(id));
  if (unknown.length > 0) throw new Error(`${path} names rules that are not in the catalogue (specs/rules.yaml): ${unknown.join(', ')}`);
  const twice = file.expected.map((e) => e.rule).filter((id, i, all) => all.indexOf(id) !== i);
  if (twice.length > 0) throw new Error(`${path} lists a rule twice: ${[...new Set(twice)].join(', ')}`);
  const uncited = unknownSections(text);
  if (uncited.length > 0)
    throw new Error(`${path} cites sections the spec does not have (specs/rules.yaml gives each rule's section): ${uncited.map((s) => `§${s}`).join(', ')}`);
  return { target: file.target ?? path, expected: file.expected };
}

/** The sections `text` cites (§4.5, §6a) that no rule of the catalogue is in: a citation of another document, or a typo. */
export function unknownSections(text: string): string[] {
  const known = new Set(contract().rules.map((r) => r.section));
  const cited = [...text.matchAll(/§\s?([0-9]+[a-z]?(?:\.[0-9]+)*)/g)].map((m) => m[1]);
  return [...new Set(cited)].filter((section) => !known.has(section));
}

/**
 * Whether a verdict is what the expectations say; unlisted rules are expected not to fail. A rule
 * that did not run or could not be judged says nothing either way (the gate counts those apart).
 */
export function isExpected(verdict: Verdict, expectation: Expectation | undefined): boolean {
  if (verdict === 'not-run' || verdict === 'error') return true;
  return expectation ? verdict === expectation.verdict : verdict !== 'fail';
}
