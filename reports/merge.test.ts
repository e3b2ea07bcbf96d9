// Shards merged: each shard's exchange ids are kept apart, the failed exchange a test names included.
import { expect, test } from '@playwright/test';
import { contract } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import { mergeReports } from './merge.ts';
import { reportProblems } from './load.ts';

test("a failed exchange keeps pointing at its test's exchange once the shards are merged", () => {
  const { id } = contract().rules.find((r) => r.plane === 'agent-server' && r.level === 'MUST')!;
  const shard = (i: number) => {
    const delivery = {
      id: 'webhook:/apc-hooks/t/x#1',
      plane: 'agent-server' as const,
      delivery: true as const,
      request: { method: 'POST', url: '/apc-hooks/t/x', headers: [] as [string, string][] },
      response: { status: 200, headers: [] as [string, string][] },
      violations: [],
    };
    return buildReport({
      rules: contract().rules,
      tests: [
        {
          outcome: {
            id: `t${i}`,
            title: `test ${i}`,
            file: 'x.spec.ts',
            status: i === 1 ? ('failed' as const) : ('passed' as const),
            observed: [],
            exchanges: [delivery.id],
            ...(i === 1 ? { error: `[exchange ${delivery.id}]`, failedExchange: delivery.id } : {}),
          },
          ruleIds: [id],
        },
      ],
      exchanges: [delivery],
      target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
      seed: '1',
      run: { status: 'complete', shard: `${i}/2`, narrowed: [`--shard ${i}/2`], profile: 'full', created: {}, cleanedUp: {}, left: {} },
      tool: { name: 'x', version: '0' },
      scope: ['agent-server'],
    });
  };
  const merged = mergeReports([1, 2].map((i) => ({ name: `shard-${i}`, report: shard(i) })));
  expect(reportProblems(merged)).toEqual([]);
  const tests = merged.rules.find((r) => r.id === id)!.tests;
  expect(tests.map((t) => [t.exchanges, t.failedExchange])).toEqual([
    [['s1-webhook:/apc-hooks/t/x#1'], 's1-webhook:/apc-hooks/t/x#1'],
    [['s2-webhook:/apc-hooks/t/x#1'], undefined],
  ]);
  expect(merged.exchanges['s1-webhook:/apc-hooks/t/x#1']).toMatchObject({ delivery: true });
});
