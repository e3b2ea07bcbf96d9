// What can be known of a mutation's `breaks` list without running it, checked in seconds rather
// than after the mutation run. The broken-target self-test kills a mutation when the rules its
// tests fail are exactly its `breaks`, and it tries each mutation on the tests tagged with those
// rules (trial-groups.ts). So a rule of `breaks` that no test is tagged with, or that is never failed (an
// `unspecified` rule is only `observed`), makes the mutation survive for certain; so does a rule
// listed twice, and a mutation of an area file the catalogue (mutations/index.ts) leaves out never
// runs at all. Whether each test does fail against it still takes a run: try-mutation.ts.
import { expect, test } from '@playwright/test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { contract } from '../../specs/contract.ts';
import { taggedTests } from '../../harness/tagged-rules.ts';
import type { Mutation } from './broken-target.ts';
import { MUTATIONS } from './mutations/index.ts';
import { RATE_ROW_MUTATIONS } from './mutations/rate-limits.ts';

const MUTATIONS_DIR = join(import.meta.dirname, 'mutations');

const isMutation = (value: unknown): value is Mutation =>
  typeof value === 'object' && value !== null && Array.isArray((value as Mutation).breaks) && typeof (value as Mutation).description === 'string';

/** Every mutation an area file of mutations/ exports, with the file that declares it. */
async function declaredMutations(): Promise<{ name: string; file: string; mutation: Mutation }[]> {
  const files = readdirSync(MUTATIONS_DIR).filter((file) => file.endsWith('.ts') && file !== 'index.ts');
  const declared = [];
  for (const file of files) {
    const module = (await import(join(MUTATIONS_DIR, file))) as Record<string, unknown>;
    for (const exported of Object.values(module)) {
      if (typeof exported !== 'object' || exported === null) continue;
      for (const [name, mutation] of Object.entries(exported)) if (isMutation(mutation)) declared.push({ name, file: `mutations/${file}`, mutation });
    }
  }
  return declared;
}

test("every mutation's breaks list names rules a test is tagged with and can fail, once each", async () => {
  const declared = await declaredMutations();
  const tagged = new Set(taggedTests().flatMap((t) => t.rules));
  const problems = declared.flatMap(({ name, file, mutation }) =>
    mutation.breaks.flatMap((id, index) => {
      const rule = contract().rule(id);
      const where = `${file}: ${name} breaks ${id}`;
      if (!rule) return [`${where}, which is not in specs/rules.yaml`];
      if (mutation.breaks.indexOf(id) !== index) return [`${where} twice`];
      if (rule.level === 'unspecified') return [`${where}, an unspecified rule: it is observed, never failed`];
      if (!tagged.has(id)) return [`${where}, which no test of suites/ is tagged with (@${id}): no run can fail it`];
      return [];
    }),
  );
  // A rule it leaves not judged is one a test judges, and not one it breaks.
  problems.push(
    ...declared.flatMap(({ name, file, mutation }) =>
      (mutation.notJudged ?? []).flatMap((id) => {
        const where = `${file}: ${name} leaves ${id} not judged`;
        if (!contract().rule(id)) return [`${where}, which is not in specs/rules.yaml`];
        if (mutation.breaks.includes(id)) return [`${where}, and breaks it too`];
        return tagged.has(id) ? [] : [`${where}, which no test of suites/ is tagged with (@${id})`];
      }),
    ),
  );
  expect(problems, `mutations that no run can kill:\n${problems.join('\n')}`).toEqual([]);
});

test('every mutation an area file of mutations/ declares is in the catalogue (mutations/index.ts)', async () => {
  // The §8 row mutations join the catalogue on demand (APC_RATE_MUTATIONS=1): too slow for every run.
  const onDemand = new Set(Object.keys(RATE_ROW_MUTATIONS));
  const left = (await declaredMutations()).filter(({ name, mutation }) => MUTATIONS[name] !== mutation && !onDemand.has(name));
  expect(
    left.map(({ name, file }) => `${name} (${file})`),
    'mutations no run tries: import their area in mutations/index.ts and add it to the catalogue',
  ).toEqual([]);
});
