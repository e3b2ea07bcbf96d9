// Three hops: from a rule id to its tagged test (grep suites/) and on to the code that
// implements it (grep simulator/ specs/). The third hop is one grep only if the id stands at
// that code, so a rule counts as named only where tests/rule-locations.ts finds it: at code of
// simulator/, on a node of specs/openapi, or as a row of specs/rate-limits.yaml. A rule the
// simulator has nothing to implement for is listed in tests/unimplemented-rules.yaml with a reason instead.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract } from '../specs/contract.ts';
import { commentsOf, MAX_IDS, namedAnywhere, namedAtCode, OPENAPI, openApiDocuments, RATE_LIMITS, simulatorSources } from './rule-locations.ts';

const ROOT = resolve(import.meta.dirname, '..');
const UNIMPLEMENTED = 'tests/unimplemented-rules.yaml';

const HOW_TO_NAME =
  `name it in a comment on, or directly above, the function, method, route entry or statement of simulator/ that implements it ` +
  `(at most ${MAX_IDS} ids a comment), or in x-implements on the node of ${OPENAPI}/*.yaml whose constraints implement it`;

interface Unimplemented {
  id: string;
  reason: string;
}

const unimplemented = (parseYaml(readFileSync(join(ROOT, UNIMPLEMENTED), 'utf8')) as { rules: Unimplemented[] }).rules;

test('every rule is named at the code that implements it, or listed as unimplemented with a reason', () => {
  const named = namedAtCode();
  const elsewhere = [...simulatorSources(), ...openApiDocuments()].flatMap(commentsOf).filter((c) => c.notAtCode !== undefined);
  const listed = new Set(unimplemented.map((u) => u.id));
  const missing = contract()
    .rules.filter((r) => !named.has(r.id) && !listed.has(r.id))
    .map((r) => {
      const only = elsewhere.filter((c) => c.ids.includes(r.id)).map((c) => `${c.file}:${c.line} (${c.notAtCode})`);
      return `${r.id} (${r.level}, ${r.plane}, §${r.section})${only.length > 0 ? `, named only in ${only.join(', ')}` : ''}`;
    });
  expect(
    missing,
    `rules not named at the code that implements them, and not in ${UNIMPLEMENTED}:\n${missing.join('\n')}\n${HOW_TO_NAME}, or list it in ${UNIMPLEMENTED} with a reason`,
  ).toEqual([]);
});

test(`no comment of simulator/ or ${OPENAPI} lists more than ${MAX_IDS} rules`, () => {
  const lists = [...simulatorSources(), ...openApiDocuments()]
    .flatMap(commentsOf)
    .filter((c) => c.ids.length > MAX_IDS)
    .map((c) => `${c.file}:${c.line} names ${c.ids.length}: ${c.ids.join(', ')}`);
  expect(lists, `lists of rule ids send a reader on a second search:\n${lists.join('\n')}\nmove each id to its code: ${HOW_TO_NAME}`).toEqual([]);
});

test(`${UNIMPLEMENTED} lists known rules the simulator does not name, once each, with a reason`, () => {
  const named = namedAnywhere();
  const unknown = unimplemented.filter((u) => !contract().rule(u.id)).map((u) => u.id);
  expect.soft(unknown, `${UNIMPLEMENTED} names rules that are not in specs/rules.yaml`).toEqual([]);
  const stale = unimplemented.filter((u) => named.has(u.id)).map((u) => `${u.id} (named in ${named.get(u.id)!.join(', ')})`);
  expect.soft(stale, `listed as unimplemented but named in the simulator now: remove them from ${UNIMPLEMENTED}\n${stale.join('\n')}`).toEqual([]);
  const twice = unimplemented.map((u) => u.id).filter((id, i, all) => all.indexOf(id) !== i);
  expect.soft(twice, `listed more than once in ${UNIMPLEMENTED}`).toEqual([]);
  const unexplained = unimplemented.filter((u) => typeof u.reason !== 'string' || u.reason.trim().length < 10).map((u) => u.id);
  expect(unexplained, `rules of ${UNIMPLEMENTED} without a reason`).toEqual([]);
});

test('every rule-shaped id the simulator names is a rule (no misspelt ids)', () => {
  const prefixes = new Set(contract().rules.map((r) => r.id.split('-')[0]));
  const misspelt = [...namedAnywhere()]
    .filter(([id]) => prefixes.has(id.split('-')[0]) && !contract().rule(id))
    .map(([id, files]) => `${id} (in ${files.join(', ')})`);
  expect(misspelt, `ids named in simulator/, ${OPENAPI} or ${RATE_LIMITS} that are not in specs/rules.yaml:\n${misspelt.join('\n')}`).toEqual([]);
});
