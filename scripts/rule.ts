// `npm run rule -- RULE-ID`: a rule's catalogue entry, its tagged tests, the code that implements it
// and the mutations that break it (scripts/rule-lookup.ts). Exit 2 for an id the catalogue lacks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { taggedTests } from '../harness/tagged-rules.ts';
import { contract } from '../specs/contract.ts';
import { namedAtCode } from '../tests/rule-locations.ts';
import { MUTATIONS } from '../tests/self-test/mutations/index.ts';
import { RATE_ROW_MUTATIONS } from '../tests/self-test/mutations/rate-limits.ts';
import { describeRule, UNIMPLEMENTED, UNMUTATED, UNTESTED, unknownRule } from './rule-lookup.ts';

/** An exception list's reasons, by rule id. */
function reasons(file: string): Map<string, string> {
  const { rules } = parseYaml(readFileSync(join(import.meta.dirname, '..', file), 'utf8')) as { rules: { id: string; reason: string }[] };
  return new Map(rules.map((r) => [r.id, r.reason]));
}

const [given] = process.argv.slice(2);
if (!given) {
  console.error('usage: npm run rule -- RULE-ID');
  process.exit(2);
}
// A tag pasted as it is written in a test (@RULE-ID) names the rule too.
const rule = contract().rule(given.replace(/^@/, ''));
if (!rule) {
  console.error(
    unknownRule(
      given,
      contract().rules.map((r) => r.id),
    ),
  );
  process.exit(2);
}
// The rate-limit rows' own mutations join the catalogue only in the nightly run (APC_RATE_MUTATIONS=1); shown here always.
const nightly = Object.entries(RATE_ROW_MUTATIONS)
  .filter(([name]) => !(name in MUTATIONS))
  .map(([name, mutation]) => [name, { ...mutation, description: `${mutation.description} (with APC_RATE_MUTATIONS=1)` }]);
const lines = describeRule(rule, {
  tests: taggedTests(),
  namedAtCode: namedAtCode(),
  mutations: { ...MUTATIONS, ...Object.fromEntries(nightly) },
  untested: reasons(UNTESTED),
  unimplemented: reasons(UNIMPLEMENTED),
  unmutated: reasons(UNMUTATED),
});
console.log(lines.join('\n'));
