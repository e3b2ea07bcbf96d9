import { expect, test } from '@playwright/test';
import type { ConformanceRun } from './conformance-run.ts';
import { partitionHeaders, partitionOf, specFileOf } from './partition.ts';

const runOn = (capabilities: string[]) => ({ target: { capabilities } }) as unknown as ConformanceRun;
const by = (file: string, titlePath: string[]) => ({ testId: 't', file, titlePath });

test('a spec file is named by its path below suites/ without its extension, from the sources and from the built package alike', () => {
  expect(specFileOf('/repo/suites/control-plane/revisions.spec.ts')).toBe('control-plane/revisions');
  expect(specFileOf('/app/node_modules/x/dist/suites/control-plane/revisions.spec.js')).toBe('control-plane/revisions');
  expect(specFileOf('C:\\repo\\suites\\agent-server\\runs.spec.mts')).toBe('agent-server/runs');
  expect(specFileOf('elsewhere/loose.spec.ts')).toBe('elsewhere/loose');
});

test("a test's partition is its spec file and a digest of its titles below the file's own, on a target with partitions only", () => {
  const sources = partitionOf(runOn(['partitions']), by('/repo/suites/agent-server/runs.spec.ts', ['runs.spec.ts', 'a run', 'ends']));
  const built = partitionOf(runOn(['partitions']), by('/x/dist/suites/agent-server/runs.spec.js', ['runs.spec.js', 'a run', 'ends']));
  expect(sources).toMatch(/^agent-server\/runs#[0-9a-f]{12}$/);
  expect(built).toBe(sources);
  expect(partitionOf(runOn(['partitions']), by('/repo/suites/agent-server/runs.spec.ts', ['runs.spec.ts', 'a run', 'fails']))).not.toBe(sources);
  expect(partitionOf(runOn([]), by('/repo/suites/agent-server/runs.spec.ts', ['runs.spec.ts', 'a run']))).toBeUndefined();
  expect(partitionHeaders(runOn([]), by('/repo/suites/a.spec.ts', ['a.spec.ts', 't']))).toEqual({});
  expect(Object.values(partitionHeaders(runOn(['partitions']), by('/repo/suites/a.spec.ts', ['a.spec.ts', 't'])))).toEqual([
    expect.stringMatching(/^a#[0-9a-f]{12}$/),
  ]);
});
