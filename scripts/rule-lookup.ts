// What `npm run rule -- RULE-ID` prints: a rule's three hops in one place. Its catalogue entry,
// the tests tagged with it (from Playwright's own list, so the tests a spec generates per row of
// specs/rate-limits.yaml, tagged at run time, are found too), the code that implements it, and the
// mutations that break it; where one of them is missing on purpose, the exception list's reason.
import type { TaggedTest } from '../harness/tagged-rules.ts';
import type { Rule } from '../specs/contract.ts';
import { sectionLabel } from '../specs/sections.ts';
import { closest } from '../specs/suggest.ts';

export const UNTESTED = 'suites/untested-rules.yaml';
export const UNIMPLEMENTED = 'tests/unimplemented-rules.yaml';
export const UNMUTATED = 'tests/self-test/unmutated-rules.yaml';

/** What the lookup reads, for every rule at once. */
export interface RuleSources {
  tests: TaggedTest[];
  /** Rule id → the places (`file:line`) of the code that implements it (tests/rule-locations.ts). */
  namedAtCode: Map<string, string[]>;
  mutations: Record<string, { breaks: string[]; description: string }>;
  /** Rule id → reason, for each exception list. */
  untested: Map<string, string>;
  unimplemented: Map<string, string>;
  unmutated: Map<string, string>;
}

/** A hop's lines, or why it has none. */
const section = (title: string, lines: string[], none: string) => [`${title}:`, ...(lines.length > 0 ? lines : [none]).map((line) => `  ${line}`)];

/** The rule's entry and its three hops, as lines of text. */
export function describeRule(rule: Rule, sources: RuleSources): string[] {
  const tested = sources.tests.filter((test) => test.rules.includes(rule.id));
  const mutations = Object.entries(sources.mutations).filter(([, mutation]) => mutation.breaks.includes(rule.id));
  const reason = (list: Map<string, string>, file: string) => (list.has(rule.id) ? `none: ${list.get(rule.id)!.trim()} (${file})` : undefined);
  const noMutationNeeded =
    rule.level === 'unspecified' ? 'none (an unspecified rule needs none)' : tested.length === 0 ? 'none (a rule without a test needs none)' : undefined;
  return [
    `${rule.id}  ${rule.level}, ${rule.source}, ${rule.plane}, ${sectionLabel(rule.section)}`,
    `  ${rule.text}`,
    ...(rule.reference ? [`  reference: ${rule.reference}`] : []),
    ...(rule.unobservable ? [`  unobservable: ${rule.unobservable.trim()}`] : []),
    '',
    ...section(
      'tests',
      tested.map((test) => `suites/${test.file}:${test.line}  ${test.title}`),
      reason(sources.untested, UNTESTED) ?? (rule.unobservable ? 'none (unobservable)' : `none, and no reason in ${UNTESTED}`),
    ),
    ...section('code', sources.namedAtCode.get(rule.id) ?? [], reason(sources.unimplemented, UNIMPLEMENTED) ?? `none, and no reason in ${UNIMPLEMENTED}`),
    ...section(
      'mutations',
      mutations.map(([name, mutation]) => `${name}  ${mutation.description}`),
      reason(sources.unmutated, UNMUTATED) ?? noMutationNeeded ?? `none, and no reason in ${UNMUTATED}`,
    ),
    ...(mutations.length > 0 ? [`  try them: npx tsx tests/self-test/try-mutation.ts --rule ${rule.id}`] : []),
  ];
}

/** `unknown rule 'THREAD-GET-UNKOWN-404': did you mean 'THREAD-GET-UNKNOWN-404'?`, or the ids that contain what was given. */
export function unknownRule(given: string, ids: string[]): string {
  const guess = closest(given, ids);
  if (guess) return `unknown rule '${given}': did you mean '${guess}'?`;
  const containing = ids.filter((id) => id.includes(given.toUpperCase()));
  return containing.length > 0
    ? `unknown rule '${given}'; rules that contain it: ${containing.slice(0, 10).join(', ')}${containing.length > 10 ? ` and ${containing.length - 10} more` : ''}`
    : `unknown rule '${given}' (not in specs/rules.yaml)`;
}
