// Every option of a conformance run (`run`), declared once: its flag, its default and its doc.
// The CLI parses the command line into ConformanceOptions (cli/run.ts), works out the rest of the plan
// (the target it started, the planes, the worker count) and hands the whole ConformancePlan to the
// suites' process through one environment variable, read here only. There the Playwright config
// hands it on, typed: to global setup and the fixtures as its metadata, to the reporters as
// their options. Suites see it only through fixtures.
import { resolve } from 'node:path';
import { PLANES, type Plane } from '../specs/contract.ts';
import { PROFILES, type Profile } from './profile.ts';
import { unknownName } from '../specs/suggest.ts';
import { TOOL } from './tool.ts';
import type { Target } from './target.ts';

/** The seed of a run that names none. */
const DEFAULT_SEED = '1';

/** An option given a value it cannot take; the CLI turns it into a usage error (exit 2). */
export class OptionError extends Error {}

type Given = string | boolean | (string | boolean)[] | undefined;

interface Declaration<T> {
  /** The value's placeholder in --help; none: a switch (a boolean). */
  arg?: string;
  /** What --help says of it; its first line is its one-line doc. */
  doc: string;
  /** Given more than once, it collects (--plane). */
  multiple?: boolean;
  /** Left out of --help: switches the project's self-tests set. */
  internal?: boolean;
  /** Its value from the command line (undefined: not given), default included; throws OptionError on a bad one. */
  read(given: Given, flag: string): T;
}

const declare = <T>(declaration: Declaration<T>) => declaration;

const text = (given: Given) => (given === undefined ? undefined : String(given));
const path = (given: Given) => (given === undefined ? undefined : resolve(String(given)));
const flagged = (given: Given) => given === true;

/** A positive number, or an OptionError naming its flag (undefined: not given). */
export function positive(given: Given, flag: string): number | undefined {
  if (given === undefined) return undefined;
  const n = Number(given);
  if (!Number.isFinite(n) || n <= 0) throw new OptionError(`${flag} must be a positive number, got '${String(given)}'`);
  return n;
}

/** A whole number in [min, max], or an OptionError naming its flag (undefined: not given). */
export const whole =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (given: Given, flag: string): number | undefined => {
    if (given === undefined) return undefined;
    const n = Number(given);
    if (!Number.isInteger(n) || n < min || n > max) throw new OptionError(`${flag} must be a whole number from ${min} to ${max}, got '${String(given)}'`);
    return n;
  };

function oneOf<T extends string>(names: readonly T[]) {
  return (given: Given, flag: string): T | undefined => {
    if (given === undefined) return undefined;
    if (!(names as readonly string[]).includes(String(given))) throw new OptionError(unknownName(flag.replace(/^--/, ''), String(given), names));
    return given as T;
  };
}

export const CONFORMANCE_OPTIONS = {
  target: declare({
    arg: '<url|file>',
    doc: `the target: an agent-server URL, a simulator URL, or a YAML
config file (planes, api_key_env, capabilities, time_scale,
timeouts, deployment_config, credentials, webhook_receiver_url,
redact: more secret names kept out of the HAR and the report).
Default: the embedded simulator.`,
    read: text,
  }),
  out: declare({ arg: '<dir>', doc: 'report folder (default: conformance-report)', read: (given) => resolve(text(given) ?? 'conformance-report') }),
  profile: declare({
    arg: '<name>',
    doc: `what the run may create on the target:
  read-only  nothing: only requests that create no resource
  safe       threads, runs, assistants, crons, traces and experiments;
             no deployments, no OAuth flows, no rate-limit probes
  full       everything, deployments, OAuth flows and rate-limit
             probes included (these spend money and real quota)
Default: full on a simulator, safe on any other target. A test that
would create what the profile forbids is skipped and says so.`,
    read: oneOf<Profile>(PROFILES),
  }),
  seed: declare({
    arg: '<seed>',
    doc: `seed for the simulator's ids and the property tests
(default: ${DEFAULT_SEED}); the same seed gives the same report`,
    read: (given) => text(given) ?? DEFAULT_SEED,
  }),
  plane: declare({
    arg: '<name>',
    doc: `run one plane's suites only: ${PLANES.join(', ')}; repeatable.
platform-api covers both regions, the platform-api (US) and
platform-api-eu (EU) endpoints of a target config`,
    multiple: true,
    read: (given, flag): Plane[] => ((given as string[] | undefined) ?? []).map((plane) => oneOf(PLANES)(plane, flag)!),
  }),
  grep: declare({ arg: '<regexp>', doc: 'run only tests whose title or rule tag matches', read: text }),
  grepInvert: declare({ arg: '<re>', doc: 'leave out tests whose title or tag matches', read: text }),
  testList: declare({
    arg: '<file>',
    doc: `run only the tests a file lists, one per line as Playwright lists
them ([plane] › file › title), or whole files ([plane] › file)`,
    read: path,
  }),
  workers: declare({
    arg: '<n>',
    doc: `run n spec files at a time. Default: one per core on a simulator
with partitions (the embedded one included), where each test sees a
platform of its own: same seed, same report on any number; 1 on another
simulator; on any other target, where a run spends its time waiting,
4, or fewer on a machine with fewer cores`,
    read: whole(1, 64),
  }),
  maxDuration: declare({
    arg: '<s>',
    doc: `stop after s seconds and write a partial report: what did not run
is 'not-run' with the reason (exit 3)`,
    read: positive,
  }),
  shard: declare({
    arg: '<i/n>',
    doc: `run the i-th of n shares of the tests (on n machines); join the
n report folders with '${TOOL.name} merge'. Shares hold about as many
tests each, unless --durations is given`,
    read: (given, flag) => {
      const shard = text(given);
      if (shard === undefined) return undefined;
      const [i, n] = shard.split('/').map(Number);
      if (!/^\d+\/\d+$/.test(shard) || i < 1 || i > n) throw new OptionError(`${flag} must be i/n with 1 <= i <= n, got '${shard}'`);
      return { index: i, count: n };
    },
  }),
  durations: declare({
    arg: '<path>',
    doc: `with --shard: split the spec files into shares of about equal time,
as an earlier run measured them (its durations.json, or its report
folder; merge writes one for the whole run). Every shard must get
the same file: the split is computed alike in each`,
    read: path,
  }),
  quiet: declare({ doc: 'print a progress line, then the failures only', read: flagged }),
  githubAnnotations: declare({ doc: 'also print each failing rule as a GitHub Actions error annotation', read: flagged }),
  baseline: declare({
    arg: '<file>',
    doc: `an earlier report.json (or its folder): every output shows the
regressions and fixes, and a regression exits 1`,
    read: path,
  }),
  expectations: declare({
    arg: '<file>',
    doc: `a YAML list of the rules this target is known not to pass, with
reasons: exit 1 only on a verdict that differs from it (unexpected
passes included)`,
    read: path,
  }),
  clock: declare({ arg: '<kind>', doc: "the embedded simulator's clock: virtual (default) or real", read: oneOf(['virtual', 'real'] as const) }),
  timeScale: declare({ arg: '<n>', doc: "with --clock real: the embedded simulator's time runs n times faster", read: positive }),
  runDuration: declare({ arg: '<ms>', doc: "how long the embedded simulator's runs take (simulated ms)", read: whole(0) }),
  webhookReceiverPort: declare({
    arg: '<port>',
    doc: `the port of the run's webhook receiver on 127.0.0.1 (default: a free
one); fix it to forward a tunnel's public URL to it`,
    read: whole(1, 65535),
  }),
  replayProperty: declare({
    arg: '<seed:path>',
    doc: `replay a failing property's counterexample, as its failure printed
them (seed and path); give --grep with its test's title too`,
    read: (given, flag) => {
      const replay = text(given);
      if (replay === undefined) return undefined;
      const match = /^(-?\d+):(\d+(?::\d+)*)$/.exec(replay);
      if (!match) throw new OptionError(`${flag} must be <seed>:<path> as a property's failure prints them (e.g. 42:3:1:0), got '${replay}'`);
      return { seed: Number(match[1]), path: match[2] };
    },
  }),
  keepTestResults: declare({
    doc: `keep Playwright's per-test output folders (attachments, error
context) in <out>/test-results; by default they go to a temporary
folder removed after the run`,
    read: flagged,
  }),
  forwardTestId: declare({
    doc: "send each request's test id to the target (a broken target of the self-tests mutates chosen tests only)",
    internal: true,
    read: flagged,
  }),
  leanStacks: declare({
    doc: "V8's own stacks instead of source-mapped ones (a sixth of the CPU; the self-tests read only verdicts)",
    internal: true,
    read: flagged,
  }),
  keepWorkers: declare({
    doc: "tell Playwright a test that failed was expected to, so its worker lives on (the self-tests' broken targets fail hundreds of tests, and a new worker costs most of a second); Playwright's own status then says the opposite of the report's",
    internal: true,
    read: flagged,
  }),
  ignoreFiles: declare({
    arg: '<regexp>',
    doc: 'leave out the spec files whose path matches (the self-tests leave out the rate-limit suites)',
    internal: true,
    read: text,
  }),
};

type Declared = typeof CONFORMANCE_OPTIONS;
export type OptionName = keyof Declared;

/** A conformance run's options, as the command line gave them, defaults applied. */
export type ConformanceOptions = { [Name in OptionName]: ReturnType<Declared[Name]['read']> };

/** `--max-duration` for `maxDuration`. */
export const flagOf = (name: OptionName): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The command line's values (by flag name, as node:util parseArgs answers them) as ConformanceOptions. */
export function readConformanceOptions(values: Record<string, Given>): ConformanceOptions {
  const entries = (Object.entries(CONFORMANCE_OPTIONS) as [OptionName, Declaration<unknown>][]).map(([name, declaration]) => {
    const flag = flagOf(name);
    return [name, declaration.read(values[flag.slice(2)], flag)];
  });
  return Object.fromEntries(entries) as ConformanceOptions;
}

/** The options' section of `run --help`, from their declarations. */
export function conformanceOptionsHelp(): string {
  return (Object.entries(CONFORMANCE_OPTIONS) as [OptionName, Declaration<unknown>][])
    .filter(([, declaration]) => !declaration.internal)
    .map(([name, declaration]) => {
      const head = `  ${flagOf(name)}${declaration.arg ? ` ${declaration.arg}` : ''}`;
      const [first, ...more] = declaration.doc.split('\n');
      const pad = ' '.repeat(24);
      return [head.length < 24 ? `${head.padEnd(24)}${first}` : `${head}\n${pad}${first}`, ...more.map((line) => `${pad}${line}`)].join('\n');
    })
    .join('\n');
}

/**
 * What the suites' process is told: the options, and what the CLI worked out from them before
 * the suites start.
 */
export interface ConformancePlan {
  options: ConformanceOptions;
  /** The embedded simulator the CLI started for this run (no --target), named as a target. */
  embedded?: Target;
  /** The planes whose suites run: --plane, or all. */
  planes: Plane[];
  /** What narrowed the selection, as given (--plane, --grep, --shard…): the rules it left out are not-run. */
  narrowed: string[];
  /** What a rerun of one failed test repeats (--target, --profile…), as given. */
  rerun: string[];
  /** How many spec files run at a time: --workers, or the target's default. */
  workers: number;
  /**
   * Where the run writes its report files while it runs: a fresh folder beside --out, whose files
   * replace the earlier run's in --out once it has ended (cli/report-folder.ts).
   */
  staging: string;
  /** A folder of the run's own, removed after it: where global setup leaves the run for the workers. */
  scratch: string;
  /** Playwright's per-test output folders. */
  testResults: string;
  /** The progress reporter's style: dots in CI and with --quiet, a line otherwise. */
  progress: 'dots' | 'line';
}

/** The plan of a run with every option at its default and its folders in `folder`: a listing of the tests, a reporter's unit test. */
export function defaultPlan(folder: string): ConformancePlan {
  return {
    options: readConformanceOptions({ out: folder }),
    planes: [...PLANES],
    narrowed: [],
    rerun: [],
    workers: 1,
    staging: folder,
    scratch: folder,
    testResults: folder,
    progress: 'line',
  };
}

/** The one environment variable the plan crosses into the suites' process by. */
const PLAN_VARIABLE = 'APC_CONFORMANCE_PLAN';

/** The environment of the suites' process: this one's, the plan, and `more` (variables a target config names). */
export function suitesEnvironment(plan: ConformancePlan, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...more, [PLAN_VARIABLE]: JSON.stringify(plan) };
}

/** The plan the CLI handed this process (the Playwright config reads it, and hands it on). */
export function handedPlan(): ConformancePlan {
  const raw = process.env[PLAN_VARIABLE];
  if (!raw) throw new OptionError('no run plan: run the suites through the CLI (agent-platform-conformance run)');
  return JSON.parse(raw) as ConformancePlan;
}

/** Whether output goes to a CI log (the CI variable every CI service sets): progress as dots. */
export const inCi = (): boolean => !!process.env.CI;

/** The plan as the Playwright config hands it on, in its metadata: global setup's config, a fixture's workerInfo.config. */
export function planOf(config: { metadata: Record<string, unknown> }): ConformancePlan {
  const plan = config.metadata.plan as ConformancePlan | undefined;
  if (!plan) throw new OptionError('no run plan in the Playwright config: run the suites through the CLI (agent-platform-conformance run)');
  return plan;
}
