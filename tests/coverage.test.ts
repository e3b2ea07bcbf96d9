// Principle 1: every rule of the catalogue has at least one test tagged with its id, or is
// listed in untested-rules.yaml with the reason no test can check it, or is marked
// `unobservable` in the catalogue. Tags naming rules that do not exist fail too.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract } from '../specs/contract.ts';
import { taggedRules } from '../harness/tagged-rules.ts';

const untested = (parseYaml(readFileSync(join(import.meta.dirname, '../suites/untested-rules.yaml'), 'utf8')) as { rules: { id: string; reason: string }[] })
  .rules;

test('every rule has a test tagged with its id, or a stated reason why none can check it', () => {
  const tagged = taggedRules();
  const excused = new Map(untested.map((u) => [u.id, u.reason]));
  const missing = contract()
    .rules.filter((r) => !tagged.has(r.id) && !excused.has(r.id) && !r.unobservable)
    .map((r) => `${r.id} (${r.level}, ${r.plane})`);
  expect(missing, `rules with no test and no reason in suites/untested-rules.yaml:\n${missing.join('\n')}`).toEqual([]);
  const stale = untested.filter((u) => tagged.has(u.id)).map((u) => u.id);
  expect(stale, 'listed as untested but tested now: remove them from suites/untested-rules.yaml').toEqual([]);
  const unknownTags = [...tagged.keys()].filter((id) => !contract().rule(id));
  expect(unknownTags, 'tags naming rules that are not in specs/rules.yaml').toEqual([]);
  for (const u of untested) {
    expect(contract().rule(u.id), `untested-rules.yaml names unknown rule ${u.id}`).toBeDefined();
    expect(u.reason.trim().length, `${u.id} needs a reason`).toBeGreaterThan(10);
  }
});
