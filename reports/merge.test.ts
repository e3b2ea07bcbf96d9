// The shards of one run merge into the report of the run in one piece, and only a whole set does;
// each shard's exchange ids are kept apart, the failed exchange a test names included.
import { expect, test } from '@playwright/test';
import { contract } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import { reportProblems } from './load.ts';
import { MergeError, mergeReports } from './merge.ts';
import type { ConformanceReport, TestOutcome } from './conformance-report.ts';

const [first, second] = contract().rules.filter((r) => r.level === 'MUST' && !r.unobservable);
const passed = (id: string): TestOutcome => ({ id, title: id, file: 'x.spec.ts', status: 'passed', observed: [], exchanges: [] });

/** Shard i of n: the test of the i-th of the two rules (none past the second). */
function shard(i: number, n: number): { name: string; report: ConformanceReport } {
  const rule = [first, second][i - 1];
  const report = buildReport({
    rules: contract().rules,
    tests: rule ? [{ outcome: passed(`t${i}`), ruleIds: [rule.id] }] : [],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server', 'control-plane', 'platform-api'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', shard: `${i}/${n}`, narrowed: [`--shard ${i}/${n}`], created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  return { name: `shard-${i}`, report };
}

const verdictOf = (report: ConformanceReport, id: string) => report.rules.find((r) => r.id === id)?.verdict;

test('a complete set of shards merges: each rule gets the tests of every shard, and the sharding narrows nothing', () => {
  const merged = mergeReports([shard(1, 2), shard(2, 2)]);
  expect([verdictOf(merged, first.id), verdictOf(merged, second.id)]).toEqual(['pass', 'pass']);
  expect(merged.run.shard).toBeUndefined();
  expect(merged.run.narrowed).toBeUndefined();
});

test('a set of shards with one missing is refused, naming it, unless a partial merge is asked for and said everywhere', () => {
  expect(() => mergeReports([shard(1, 2)])).toThrow(
    new MergeError('shard 2/2 of the run is missing: its rules would go unjudged (merge what there is with --allow-partial)'),
  );
  expect(() => mergeReports([shard(1, 3)])).toThrow(/shards 2\/3, 3\/3 of the run are missing/);
  const partial = mergeReports([shard(1, 2)], { allowPartial: true });
  expect(partial.run.narrowed).toEqual(['merge --allow-partial (shards 2/2 missing)']);
  expect(verdictOf(partial, second.id)).toBe('not-run');
  expect(partial.summary.gate.reasons[0]).toMatch(/narrowed by merge --allow-partial \(shards 2\/2 missing\)/);
});

test('a shard given twice, shards of different counts and a report that is no shard are refused', () => {
  expect(() => mergeReports([shard(1, 2), { ...shard(1, 2), name: 'again' }, shard(2, 2)])).toThrow(/shard 1\/2 is given twice \(shard-1 and again\)/);
  expect(() => mergeReports([shard(1, 2), shard(2, 3)])).toThrow(/shard-2 is a shard of 3, shard-1 of 2/);
  const whole = shard(1, 1).report;
  const unsharded = { name: 'whole', report: { ...whole, run: { ...whole.run, shard: undefined } } };
  expect(() => mergeReports([unsharded])).toThrow(/whole is not a shard's report/);
});

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
