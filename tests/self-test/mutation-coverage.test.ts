// Principle 7: every tested MUST rule, and every SHOULD rule with a test, is broken on purpose by at
// least one mutation of the catalogue (mutations/), or unmutated-rules.yaml says why no mutation can
// fail exactly that rule. Whether each mutation does fail exactly its rules is the broken-target
// self-test's part; this one checks the catalogue covers the rules (mutation-breaks.test.ts, that
// each rule a mutation names exists and can fail).
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract } from '../../specs/contract.ts';
import { taggedRules } from '../../harness/tagged-rules.ts';
import { MUTATIONS } from './mutations/index.ts';

const unmutated = (parseYaml(readFileSync(join(import.meta.dirname, 'unmutated-rules.yaml'), 'utf8')) as { rules: { id: string; reason: string }[] }).rules;

test('every tested MUST and SHOULD rule is broken by a mutation, or unmutated-rules.yaml says why none can be', () => {
  const tagged = taggedRules();
  const broken = new Set(Object.values(MUTATIONS).flatMap((m) => m.breaks));
  const excused = new Map(unmutated.map((u) => [u.id, u.reason]));
  const testable = contract().rules.filter((r) => r.level !== 'unspecified' && tagged.has(r.id));
  const missing = testable.filter((r) => !broken.has(r.id) && !excused.has(r.id)).map((r) => `${r.id} (${r.level})`);
  expect(missing, `tested rules no mutation breaks and unmutated-rules.yaml does not excuse:\n${missing.join('\n')}`).toEqual([]);
  const stale = unmutated.filter((u) => broken.has(u.id)).map((u) => u.id);
  expect(stale, 'excused in unmutated-rules.yaml but broken by a mutation now: remove them').toEqual([]);
  for (const u of unmutated) {
    expect(
      testable.some((r) => r.id === u.id),
      `unmutated-rules.yaml names ${u.id}, which is not a tested MUST or SHOULD rule`,
    ).toBe(true);
    expect(u.reason.trim().length, `${u.id} needs a reason`).toBeGreaterThan(20);
  }
  const share = (level: string) => {
    const of = testable.filter((r) => r.level === level);
    return `${of.filter((r) => broken.has(r.id)).length}/${of.length}`;
  };
  console.log(
    `Mutations: ${Object.keys(MUTATIONS).length}; tested rules they break: MUST ${share('MUST')}, SHOULD ${share('SHOULD')}; excused: ${unmutated.length}`,
  );
});
