// Three hops: from a rule id to its tagged test (grep suites/) and on to the code that
// implements it (grep simulator/ or specs/openapi). Every rule is named in a non-test source
// of simulator/ (a comment at the code that implements it) or in a value of
// specs/openapi/*.yaml (x-rules, x-rule, a description), or tests/unimplemented-rules.yaml
// says why the simulator has nothing to name. An id listed there must not be named too.
import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract } from '../specs/contract.ts';

const ROOT = resolve(import.meta.dirname, '..');
const UNIMPLEMENTED = 'tests/unimplemented-rules.yaml';

/** A rule id as written in text: upper-case words joined by hyphens, standing alone. */
const RULE_ID = /(?<![A-Za-z0-9-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![A-Za-z0-9-])/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every string value of a parsed document: x-rules and x-rule entries, descriptions. */
function stringsOf(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(stringsOf);
  if (node !== null && typeof node === 'object') return Object.values(node).flatMap(stringsOf);
  return [];
}

/** Where each rule-shaped id is named: simulator sources (unit tests excluded) and the OpenAPI documents. */
function namedIds(): Map<string, string[]> {
  const texts: [string, string][] = [
    ...filesUnder(join(ROOT, 'simulator'))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file): [string, string] => [file, readFileSync(file, 'utf8')]),
    ...filesUnder(join(ROOT, 'specs/openapi'))
      .filter((file) => file.endsWith('.yaml'))
      .map((file): [string, string] => [file, stringsOf(parseYaml(readFileSync(file, 'utf8'))).join('\n')]),
  ];
  const named = new Map<string, string[]>();
  for (const [file, text] of texts) {
    for (const id of new Set(text.match(RULE_ID) ?? [])) named.set(id, [...(named.get(id) ?? []), relative(ROOT, file)]);
  }
  return named;
}

interface Unimplemented {
  id: string;
  reason: string;
}

const unimplemented = (parseYaml(readFileSync(join(ROOT, UNIMPLEMENTED), 'utf8')) as { rules: Unimplemented[] }).rules;

test('every rule is named where the simulator implements it, or listed as unimplemented with a reason', () => {
  const named = namedIds();
  const listed = new Set(unimplemented.map((u) => u.id));
  const missing = contract()
    .rules.filter((r) => !named.has(r.id) && !listed.has(r.id))
    .map((r) => `${r.id} (${r.level}, ${r.plane}, §${r.section})`);
  expect(
    missing,
    `rules named neither in simulator/ nor in specs/openapi, and not in ${UNIMPLEMENTED}:\n${missing.join('\n')}\n` +
      'name each in a comment at the code that implements it (or x-rules on the schema node that does), or list it with a reason',
  ).toEqual([]);
});

test(`${UNIMPLEMENTED} lists known rules the simulator does not name, once each, with a reason`, () => {
  const named = namedIds();
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
  const misspelt = [...namedIds()]
    .filter(([id]) => prefixes.has(id.split('-')[0]) && !contract().rule(id))
    .map(([id, files]) => `${id} (in ${files.join(', ')})`);
  expect(misspelt, `ids named in simulator/ or specs/openapi that are not in specs/rules.yaml:\n${misspelt.join('\n')}`).toEqual([]);
});
