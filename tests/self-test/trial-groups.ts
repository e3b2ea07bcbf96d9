// How the self-tests try every mutation in few conformance runs. A mutation needs only the
// tests it can reach (affected.ts); mutations whose tests are disjoint share one broken target
// and one run, each applied to its own tests (broken-target.ts routes by test). A mutation of
// rate limits (whose bulk traffic goes straight to the target, outside the recording, so the
// clean run cannot show what it reaches) gets a run of its own with the rate-limit suites.
// Groups are then dealt to lanes, one Playwright test each, so the project's workers share them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { planeOf, type Plane } from '../../specs/contract.ts';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import { reach, recordingKey } from './affected.ts';
import type { Mutation } from './broken-target.ts';
import { MUTATIONS } from './mutations/index.ts';
import { type TaggedTest, taggedTests } from '../../harness/tagged-rules.ts';

export interface Trial {
  name: string;
  mutation: Mutation;
  /** The tests it is tried on (ids of the clean run). */
  tests: Set<string>;
  /** The recording ids whose requests it applies to (those tests', and steps they share). */
  recordings: Set<string>;
  /** A rate-limit mutation's: the test-list lines of the rate-limit suites' tests of its rules, which the clean run leaves out. */
  rateLimitTests?: string[];
  /**
   * The trial before it left tests to the others of its group (groupTrials, share): a mutation that fails
   * only some of its rules on the tests left to it is tried again on all of them.
   */
  whole?: { tests: Set<string>; recordings: Set<string> };
}

/** The recording keys of the exchanges each test shows: its own, and a shared deployment's it leaned on. */
function keysShown(clean: ConformanceReport): Map<string, string[]> {
  const shown = new Map<string, string[]>();
  for (const rule of clean.rules) {
    for (const t of rule.tests)
      shown.set(
        t.id,
        t.exchanges.flatMap((id) => (clean.exchanges[id]?.test ? [recordingKey(clean.exchanges[id].test!)] : [])),
      );
  }
  return shown;
}

export interface Group {
  trials: Trial[];
  /** Playwright --test-list lines: the tests to run, or whole files. */
  testList: string[];
  /** One mutation applied to every request (the rate-limit suites, a declared configuration): not routed by test. */
  alone: boolean;
}

export const RATE_LIMIT_FILES = [
  'platform-api/rate-limits-rules.spec.ts',
  'platform-api/rate-limits-table.spec.ts',
  'platform-api/rate-limits-observed.spec.ts',
  'platform-api/rate-limits-model.spec.ts',
  'control-plane/rate-limits-repos.spec.ts',
];

/** The Playwright --test-list lines of a plane's rate-limit suites, whole. */
export const rateLimitFiles = (plane: Plane) => RATE_LIMIT_FILES.filter((f) => f.startsWith(`${plane}/`)).map((file) => `[${plane}] › ${file}`);

/**
 * By default each mutation is tried on the tests of the rules it breaks (among those it reaches): the self-test then
 * fits CI. APC_MUTATION_REACH=full tries each on every test it reaches, which also shows that tests using a broken
 * behaviour only as a step skip naming the failed precondition instead of failing (about seven times the work).
 */
const FULL_REACH = process.env.APC_MUTATION_REACH === 'full';

/** The Playwright --test-list line of each test of the clean run. */
export function testLines(clean: ConformanceReport): Map<string, string> {
  return new Map(clean.rules.flatMap((rule) => rule.tests.map((t) => [t.id, `[${t.file.split('/')[0]}] › ${t.file} › ${t.title}`] as const)));
}

/** The test-list line of a test Playwright listed (tagged-rules.ts). */
const listedLine = (t: TaggedTest) => `[${t.file.split('/')[0]}] › ${[t.file, ...t.describes, t.title].join(' › ')}`;

export function groupMutations(mutations: Record<string, Mutation>, clean: ConformanceReport): Group[] {
  const allTests = new Set(clean.rules.flatMap((r) => r.tests.map((t) => t.id)));
  const shown = keysShown(clean);
  const testsOf = (rules: string[]) => new Set(clean.rules.filter((r) => rules.includes(r.id)).flatMap((r) => r.tests.map((t) => t.id)));
  // The rate-limit suites' tests, from Playwright's list: the clean run leaves them out.
  let listed: TaggedTest[] | undefined;
  const rateLimitTestsOf = (rules: string[]) =>
    (listed ??= taggedTests()).filter((t) => RATE_LIMIT_FILES.includes(t.file) && t.rules.some((r) => rules.includes(r))).map(listedLine);
  const trials = Object.entries(mutations)
    .map(([name, mutation]): Trial => {
      const reached = reach(mutation, clean);
      // One that breaks nothing must be seen failing no test it reaches (a rate-limit mutation: the whole rate-limit suites).
      if (FULL_REACH || mutation.breaks.length === 0) return { name, mutation, ...reached };
      const own = testsOf([...mutation.breaks, ...(mutation.notJudged ?? [])]);
      // A rate-limit mutation is tried alone (its front breaks the bulk of a fill, sent past the recording proxy) on the
      // tests of its rules: those it reaches in the clean run and those of the rate-limit suites.
      if (mutation.rateLimits)
        return {
          name,
          mutation,
          tests: new Set([...reached.tests].filter((id) => own.has(id))),
          recordings: reached.recordings,
          rateLimitTests: rateLimitTestsOf([...mutation.breaks, ...(mutation.notJudged ?? [])]),
        };
      // Replay cannot see what it reacts to: it is tried on its rules' tests.
      if (mutation.keyedOnSecrets) return { name, mutation, tests: own, recordings: own };
      // Recordings of other tests are left out, and so are those of steps shared between tests (a deployment) that
      // none of its tests leans on: their exchanges are no evidence of its tests, and others' tests then share the run.
      const tests = new Set([...reached.tests].filter((id) => own.has(id)));
      const leansOn = new Set([...tests].flatMap((id) => shown.get(id) ?? []));
      const mine = (id: string) => tests.has(id) || (!allTests.has(id) && leansOn.has(id));
      return { name, mutation, tests, recordings: new Set([...reached.recordings].filter(mine)) };
    })
    .sort((a, b) => b.tests.size - a.tests.size || a.name.localeCompare(b.name));
  return groupTrials(trials, clean, { share: !FULL_REACH });
}

/**
 * Deals trials into groups that share one broken target and one run: those whose tests and the
 * recordings they change are apart. A trial that breaks rate limits or a declared configuration
 * gets a group of its own.
 *
 * With `share` (mutations, tried on the tests of their rules), a trial that fits no group as it is leaves
 * to a group's trials the tests it has in common with them, when every rule it must fail (breaks, notJudged)
 * keeps a test of its own: what the mutation breaks is still judged, rule by rule. Each mutation of a webhook
 * payload's field would otherwise need a run of its own: the four tests of every emitting operation judge all
 * sixteen of the payload's rules. A variant is tried on every test it reaches, never on fewer.
 */
export function groupTrials(trials: Trial[], clean: ConformanceReport, { share = false } = {}): Group[] {
  const lineOf = testLines(clean);
  const shown = keysShown(clean);
  const testsOfRule = new Map(clean.rules.map((r) => [r.id, r.tests.map((t) => t.id)]));
  const uses = new Map<Trial, Set<string>>();
  const usesOf = (t: Trial) => uses.get(t) ?? uses.set(t, new Set([...t.tests].flatMap((id) => shown.get(id) ?? []))).get(t)!;
  // Apart: no test in common, and neither breaks requests the other's tests make or lean on.
  const apart = (a: Trial, b: Trial) =>
    [...a.tests].every((id) => !b.tests.has(id)) &&
    [...a.recordings, ...usesOf(a)].every((id) => !b.recordings.has(id)) &&
    [...a.recordings].every((id) => !usesOf(b).has(id));
  /** The trial without the tests the group's trials hold, if each rule it must fail keeps one of its tests. */
  const leaving = (trial: Trial, group: Group): Trial | undefined => {
    const held = new Set(group.trials.flatMap((t) => [...t.tests]));
    const tests = new Set([...trial.tests].filter((id) => !held.has(id)));
    const judged = [...trial.mutation.breaks, ...(trial.mutation.notJudged ?? [])];
    if (tests.size === trial.tests.size || judged.length === 0) return undefined;
    if (!judged.every((rule) => testsOfRule.get(rule)?.some((id) => tests.has(id)))) return undefined;
    const whole = { tests: trial.tests, recordings: trial.recordings };
    return { ...trial, tests, recordings: new Set([...trial.recordings].filter((id) => !held.has(id))), whole };
  };
  const groups: Group[] = [];
  for (const trial of trials) {
    // A mutation of what the target declares (read once per run) needs a broken target of its own too.
    if (trial.mutation.rateLimits || trial.mutation.deploymentConfig) {
      // Its tests of the rate-limit suites, or all of them on the mutation's plane (a front breaks its endpoint alone).
      const plane = planeOf(trial.mutation.endpoint ?? 'agent-server');
      const rateLimitSuites = trial.mutation.rateLimits ? (trial.rateLimitTests ?? rateLimitFiles(plane)) : [];
      groups.push({ trials: [trial], testList: [...[...trial.tests].map((id) => lineOf.get(id)!), ...rateLimitSuites], alone: true });
      continue;
    }
    const open = groups.filter((g) => !g.alone);
    const fits = (t: Trial, g: Group) => g.trials.every((other) => apart(t, other));
    let placed: { group: Group; trial: Trial } | undefined;
    const asItIs = open.find((g) => fits(trial, g));
    if (asItIs) placed = { group: asItIs, trial };
    for (const group of share && !placed ? open : []) {
      const narrowed = leaving(trial, group);
      if (narrowed && fits(narrowed, group)) {
        placed = { group, trial: narrowed };
        break;
      }
    }
    placed ??= { group: groups[groups.push({ trials: [], testList: [], alone: false }) - 1], trial };
    placed.group.trials.push(placed.trial);
    placed.group.testList.push(...[...placed.trial.tests].map((id) => lineOf.get(id)!));
  }
  return groups;
}

/**
 * The mutations this run tries: the slice (sliceOf) of those whose names match APC_MUTATIONS (a
 * regex: a quicker loop while writing them).
 */
export function mutationsOfThisRun(slice: string): Record<string, Mutation> {
  const names = new RegExp(process.env.APC_MUTATIONS ?? '');
  return sliceOf(Object.fromEntries(Object.entries(MUTATIONS).filter(([name]) => names.test(name))), slice);
}

/**
 * The mutations one run tries. `npm test` tries a slice (`k/n`: every n-th mutation by name from the
 * k-th, the same from run to run); `npm run test:mutations` tries `all`.
 */
function sliceOf(mutations: Record<string, Mutation>, slice: string): Record<string, Mutation> {
  if (slice === 'all') return mutations;
  const match = /^(\d+)\/(\d+)$/.exec(slice);
  const [k, n] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!(n >= 1 && k >= 1 && k <= n)) throw new Error(`APC_MUTATION_SLICE=${slice}: expected 'all' or k/n with 1 <= k <= n`);
  return Object.fromEntries(
    Object.entries(mutations)
      .sort(([a], [b]) => a.localeCompare(b))
      .filter((_, index) => index % n === k - 1),
  );
}

/** Deals groups to `lanes`, largest first, each to the lane with the least work so far. */
export function lanesOf<G extends Pick<Group, 'testList'> & { trials: Pick<Trial, 'mutation'>[] }>(groups: G[], lanes: number): G[][] {
  // In tests' worth: a run's start is some sixty; a whole file about ten tests; a rate-limit test's fill, sent in
  // batches (bulk-requests), about three, and a whole rate-limit suite about forty.
  const rateLimit = (line: string) => RATE_LIMIT_FILES.some((file) => line.includes(file));
  const lineCost = (line: string) => (line.split(' › ').length === 2 ? (rateLimit(line) ? 40 : 10) : rateLimit(line) ? 3 : 1);
  const cost = (g: G) => 60 + g.testList.reduce((sum, line) => sum + lineCost(line), 0);
  const dealt: { groups: G[]; cost: number }[] = Array.from({ length: lanes }, () => ({ groups: [], cost: 0 }));
  for (const group of [...groups].sort((a, b) => cost(b) - cost(a))) {
    const lane = dealt.reduce((min, l) => (l.cost < min.cost ? l : min));
    lane.groups.push(group);
    lane.cost += cost(group);
  }
  return dealt.map((l) => l.groups);
}

interface SavedTrial {
  name: string;
  tests: string[];
  recordings: string[];
  whole?: { tests: string[]; recordings: string[] };
}

interface SavedGroup {
  trials: SavedTrial[];
  testList: string[];
  alone: boolean;
}

/**
 * Writes the trial groups for the broken-target lanes. Replaying the clean run through every mutation
 * takes seconds (ten for all of them), so the clean run's setup groups them once instead of every lane's worker.
 */
export function saveTrialGroups(groups: Group[], file: string): void {
  const saved: SavedGroup[] = groups.map((g) => ({
    trials: g.trials.map((t) => ({
      name: t.name,
      tests: [...t.tests],
      recordings: [...t.recordings],
      ...(t.whole && { whole: { tests: [...t.whole.tests], recordings: [...t.whole.recordings] } }),
    })),
    testList: g.testList,
    alone: g.alone,
  }));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(saved));
}

/** The trial groups saveTrialGroups wrote, their trials joined again to their mutations. */
export function loadTrialGroups(file: string): Group[] {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedGroup[];
  return saved.map((g) => ({
    ...g,
    trials: g.trials.map((t) => {
      const mutation = MUTATIONS[t.name];
      if (!mutation) throw new Error(`${file} names a mutation that no longer exists: ${t.name}; run a lane again, which makes a new clean run`);
      const whole = t.whole && { tests: new Set(t.whole.tests), recordings: new Set(t.whole.recordings) };
      return { name: t.name, mutation, tests: new Set(t.tests), recordings: new Set(t.recordings), ...(whole && { whole }) };
    }),
  }));
}
