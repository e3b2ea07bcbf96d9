// The shards of one run (run --shard i/n) joined into one report: each rule gets the tests of
// every shard and its verdict again, exchange ids are kept apart per shard, and the run's
// outcome is decided anew from the whole. Expectations, the baseline and why a rule is untested
// travel in the shards' reports themselves.
import { contract, PLANES } from '../specs/contract.ts';
import { buildReport } from './build.ts';
import type { ExpectationsFile } from './expectations.ts';
import type { ConformanceReport, ConformanceRunOutcome, RecordedExchange, TestOutcome } from './conformance-report.ts';

export class MergeError extends Error {}

/** The exchange id a shard's exchange takes in the merged report. */
export const mergedExchangeId = (shard: number, id: string) => `s${shard + 1}-${id}`;

/**
 * Which shards of `n` the reports hold, checked: each is a shard of the same n, none is given twice,
 * and every one is there unless `allowPartial` (then answers those missing).
 */
function checkShards(shards: { name: string; report: ConformanceReport }[], allowPartial: boolean): { missing: string[] } {
  const parsed = shards.map(({ name, report }) => {
    const match = /^(\d+)\/(\d+)$/.exec(report.run.shard ?? '');
    if (!match) throw new MergeError(`${name} is not a shard's report (run --shard i/n wrote none of it): merge joins the shards of one run`);
    return { name, i: Number(match[1]), n: Number(match[2]) };
  });
  const n = parsed[0].n;
  const other = parsed.find((p) => p.n !== n);
  if (other) throw new MergeError(`${other.name} is a shard of ${other.n}, ${parsed[0].name} of ${n}: shards of one run share their count`);
  for (const p of parsed) {
    const twice = parsed.find((q) => q !== p && q.i === p.i);
    if (twice) throw new MergeError(`shard ${p.i}/${n} is given twice (${p.name} and ${twice.name})`);
  }
  const missing = Array.from({ length: n }, (_, k) => k + 1)
    .filter((i) => !parsed.some((p) => p.i === i))
    .map((i) => `${i}/${n}`);
  if (missing.length > 0 && !allowPartial)
    throw new MergeError(
      `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of the run ${missing.length === 1 ? 'is missing: its' : 'are missing: their'} rules would go unjudged (merge what there is with --allow-partial)`,
    );
  return { missing };
}

export function mergeReports(shards: { name: string; report: ConformanceReport }[], { allowPartial = false } = {}): ConformanceReport {
  if (shards.length === 0) throw new MergeError('no report to merge');
  const { missing } = checkShards(shards, allowPartial);
  const [first] = shards;
  for (const { name, report } of shards) {
    if (report.target.name !== first.report.target.name)
      throw new MergeError(
        `${name} is of target '${report.target.name}', ${first.name} of '${first.report.target.name}': shards of one run share their target`,
      );
    if (report.seed !== first.report.seed)
      throw new MergeError(`${name} has seed ${report.seed}, ${first.name} seed ${first.report.seed}: shards of one run share their seed`);
  }
  const tests: { outcome: TestOutcome; ruleIds: string[] }[] = [];
  const exchanges: RecordedExchange[] = [];
  shards.forEach(({ report }, shard) => {
    for (const rule of report.rules) {
      for (const t of rule.tests) {
        const failedExchange = t.failedExchange && mergedExchangeId(shard, t.failedExchange);
        tests.push({
          outcome: { ...t, exchanges: t.exchanges.map((id) => mergedExchangeId(shard, id)), ...(failedExchange ? { failedExchange } : {}) },
          ruleIds: [rule.id],
        });
      }
    }
    for (const [id, exchange] of Object.entries(report.exchanges)) exchanges.push({ ...exchange, id: mergedExchangeId(shard, id) });
  });
  const expected = new Map(shards.flatMap(({ report }) => report.rules.filter((r) => r.expected).map((r) => [r.id, r.expected!] as const)));
  const withExpectations = shards.some(({ report }) => report.summary.unexpected !== undefined);
  const expectations: ExpectationsFile | undefined = withExpectations
    ? { target: first.report.target.name, expected: [...expected].map(([rule, e]) => ({ rule, ...e })) }
    : undefined;
  const baselineFile = shards.find(({ report }) => report.summary.baseline)?.report.summary.baseline?.file;
  const before = baselineFile
    ? {
        ...first.report,
        rules: first.report.rules
          .filter((r) => r.baseline !== undefined && r.baseline !== 'missing')
          .map((r) => ({ ...r, verdict: r.baseline as RuleVerdict, tests: [] })),
      }
    : undefined;
  const scope = PLANES.filter((plane) => shards.some(({ report }) => report.rules.some((r) => r.plane === plane && r.verdict !== 'out-of-scope')));
  const merged = buildReport({
    rules: contract().rules,
    tests,
    exchanges,
    target: { ...first.report.target, planes: [...new Set(shards.flatMap(({ report }) => report.target.planes))] },
    seed: first.report.seed,
    tool: first.report.tool,
    run: mergeRunOutcomes(
      shards.map(({ report }) => report.run),
      missing,
    ),
    scope,
    expectations,
    baseline: before && baselineFile ? { file: baselineFile, report: before } : undefined,
    untested: Object.fromEntries(first.report.rules.filter((r) => r.verdict === 'not-tested' && r.reason).map((r) => [r.id, r.reason!])),
  });
  const unknown = new Map<string, string[]>();
  for (const { report } of shards) for (const u of report.unknownRuleTags) unknown.set(u.tag, [...(unknown.get(u.tag) ?? []), ...u.tests]);
  return { ...merged, unknownRuleTags: [...unknown].map(([tag, list]) => ({ tag, tests: list })) };
}

type RuleVerdict = ConformanceReport['rules'][number]['verdict'];

/**
 * The shards' run outcomes as one: the first that did not start, else the first that did not complete, says how the
 * run ended (and which shard); what they left adds up;
 * what narrowed them, but the sharding itself, narrows the whole (and so do the shards missing from a partial merge).
 */
function mergeRunOutcomes(runs: ConformanceRunOutcome[], missing: string[]): ConformanceRunOutcome {
  const narrowed = [
    ...new Set(runs.flatMap((r) => (r.narrowed ?? []).filter((option) => !option.startsWith('--shard ')))),
    ...(missing.length > 0 ? [`merge --allow-partial (shards ${missing.join(', ')} missing)`] : []),
  ];
  // A shard that never started (its target was not ready) decides first: its share of the rules has no verdict.
  const partial = runs.find((r) => r.status === 'not-started') ?? runs.find((r) => r.status !== 'complete');
  const add = (pick: (r: ConformanceRunOutcome) => ConformanceRunOutcome['created']) => {
    const total: ConformanceRunOutcome['created'] = {};
    for (const run of runs) {
      for (const [endpoint, kinds] of Object.entries(pick(run))) {
        const into = (total[endpoint as keyof typeof total] ??= {});
        for (const [kind, n] of Object.entries(kinds ?? {})) into[kind] = (into[kind] ?? 0) + n;
      }
    }
    return total;
  };
  return {
    status: partial?.status ?? 'complete',
    ...(partial?.reason ? { reason: partial.shard ? `shard ${partial.shard}: ${partial.reason}` : partial.reason } : {}),
    profile: runs[0].profile,
    ...(narrowed.length > 0 ? { narrowed } : {}),
    created: add((r) => r.created),
    cleanedUp: add((r) => r.cleanedUp),
    left: add((r) => r.left),
  };
}
