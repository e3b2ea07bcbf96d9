import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { join } from 'node:path';
import { ROOT } from './args.ts';
import { balancedShares, specFiles, testListOf } from './shards.ts';

const files = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,3}\/[a-z]{1,4}\.spec\.ts$/), { maxLength: 40 });
const durations = (names: string[]) => fc.tuple(...names.map(() => fc.option(fc.nat(100_000), { nil: undefined })));

test('every file lands in exactly one share, whatever the durations and the count of shares', () => {
  fc.assert(
    fc.property(
      files.chain((names) => fc.tuple(fc.constant(names), durations(names), fc.integer({ min: 1, max: 8 }))),
      ([names, times, n]) => {
        const known = Object.fromEntries(names.flatMap((f, i) => (times[i] === undefined ? [] : [[f, times[i]]])));
        const shares = balancedShares(names, known, n);
        expect(shares).toHaveLength(n);
        expect(shares.flat().sort()).toEqual([...names].sort());
        // The same inputs in another order give the same split: every shard computes it alone.
        expect(balancedShares([...names].reverse(), known, n)).toEqual(shares);
      },
    ),
  );
});

test('shares are balanced by time, not by count: the longest file gets a share of its own', () => {
  const times = { 'a/long.spec.ts': 100, 'a/b.spec.ts': 30, 'a/c.spec.ts': 30, 'a/d.spec.ts': 30, 'a/e.spec.ts': 10 };
  expect(balancedShares(Object.keys(times), times, 2)).toEqual([['a/long.spec.ts'], ['a/b.spec.ts', 'a/c.spec.ts', 'a/d.spec.ts', 'a/e.spec.ts']]);
  // A file the durations do not know counts as their median (30).
  expect(balancedShares([...Object.keys(times), 'a/new.spec.ts'], times, 2)).toEqual([
    ['a/e.spec.ts', 'a/long.spec.ts'],
    ['a/b.spec.ts', 'a/c.spec.ts', 'a/d.spec.ts', 'a/new.spec.ts'],
  ]);
});

test("the suites' spec files, as a Playwright test list of whole files", () => {
  const listed = specFiles(join(ROOT, 'suites'), ['control-plane'], '.ts');
  expect(listed).toContain('control-plane/repositories.spec.ts');
  expect(listed.every((f) => f.startsWith('control-plane/') && f.endsWith('.spec.ts'))).toBe(true);
  // At any depth: a file left out of every share would run in none.
  expect(specFiles(join(ROOT, 'suites'), ['agent-server'], '.ts')).toContain('agent-server/model/threads-and-runs.spec.ts');
  expect(testListOf(['control-plane/auth.spec.ts'])).toBe('[control-plane] › control-plane/auth.spec.ts\n');
});
