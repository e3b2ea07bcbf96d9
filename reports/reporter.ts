// The Playwright reporter: gathers each test's rule tags, outcome, observations and
// exchanges, then writes the conformance report when the run ends.
import { redactRunError } from '../harness/proxy/redact.ts';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { contract, planeOf, PLANES, type Endpoint, type Plane } from '../specs/contract.ts';
import { afterTargetLost, type PlayedTest, type ReportedTest, reportedTest } from './reported-test.ts';
import { attachedEvidence, emptyEvidence } from '../harness/test-evidence.ts';
import { sharedConformanceRun, type ConformanceRun } from '../harness/conformance-run.ts';
import type { ConformancePlan } from '../harness/conformance-options.ts';
import { conformanceEnd, targetLost } from '../harness/conformance-end.ts';
import type { TargetLoss } from '../harness/target-watch.ts';
import { deliveryOrder, runDeliveries } from '../harness/webhook-evidence.ts';
import { buildReport } from './build.ts';
import { consoleSummary } from './console.ts';
import { loadExpectations } from './expectations.ts';
import { loadReport } from './load.ts';
import type { ConformanceReport, ConformanceRunOutcome, RecordedExchange, Reproduction, TestOutcome } from './conformance-report.ts';
import { curlOf, rerunCommand, type Base } from './reproduce.ts';
import { type NotStarted, notStartedReport } from './not-started.ts';
import { type Durations, writeDurations } from './durations.ts';
import { REPORT_FILES, writeReport } from './write.ts';
import { TOOL } from '../harness/tool.ts';
import { stripVTControlCharacters } from 'node:util';
import { type Exchange, RULE_TAG } from '../specs/evidence-protocol.ts';

interface Options {
  /** The run's plan, as the CLI handed it (harness/playwright.config.ts). */
  plan: ConformancePlan;
}

export default class ConformanceReporter implements Reporter {
  private readonly tests = new Map<string, ReportedTest>();
  private readonly exchanges = new Map<string, RecordedExchange>();
  private rootDir = process.cwd();
  /** Errors outside any test: a global setup that failed means the run never started. */
  private readonly outsideErrors: TestError[] = [];
  /** Every test the run selected: those that never end (a stopped run) are reported not-run. */
  private selected: TestCase[] = [];
  /** How long each spec file took (durations.json, for shards balanced by time). */
  private readonly durations: Durations = {};
  /** When each test ended (ms since the epoch), by test id: a target lost before then makes its failure an error. */
  private readonly ended = new Map<string, number>();

  /** The run global setup shared, read once it has (none: it failed). */
  private shared?: ConformanceRun;

  constructor(private readonly options: Options) {}

  private conformanceRun(): ConformanceRun | undefined {
    this.shared ??= sharedConformanceRun(this.options.plan);
    return this.shared;
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.rootDir = config.rootDir;
    this.selected = suite.allTests();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const attached = attachedEvidence(result.attachments);
    const skips = [...test.annotations, ...(result.annotations ?? [])].filter((a) => a.type === 'skip' || a.type === 'fixme');
    // A run stopped mid-way (a lost target, Ctrl-C) has Playwright end the tests left in a stopped worker's
    // queue as skipped, with no skip of their own and no evidence: they did not run, and onEnd says why.
    if (result.status === 'skipped' && skips.length === 0 && !attached) return;
    const evidence = attached ?? emptyEvidence();
    for (const exchange of evidence.exchanges) this.exchanges.set(exchange.id, forReport(exchange));
    // Playwright's own: the test's status, its errors, why it was skipped.
    const skip = skips.map((a) => a.description).filter(Boolean);
    const error = result.errors.length > 0 ? result.errors.map((e) => stripVTControlCharacters(e.message ?? e.value ?? 'error')).join('\n\n') : undefined;
    const played: PlayedTest = {
      id: test.id,
      title: test.titlePath().slice(3).join(' › ') || test.title,
      file: relative(this.rootDir, test.location.file),
      ruleIds: ruleIdsOf(test),
      status: result.status,
      error,
      skipReason: [...new Set(skip)].join('; '),
    };
    const reported = reportedTest(played, evidence);
    const { outcome } = reported;
    if (outcome.status === 'failed' || outcome.status === 'timedOut' || outcome.status === 'error') {
      outcome.reproduce = reproduction(
        this.options.plan,
        this.conformanceRun(),
        test,
        evidence.exchanges.find((e) => e.id === outcome.failedExchange),
      );
    }
    this.durations[outcome.file] = (this.durations[outcome.file] ?? 0) + result.duration;
    this.ended.set(test.id, result.startTime.getTime() + result.duration);
    this.tests.set(test.id, reported);
  }

  onError(error: TestError): void {
    redactRunError(error);
    this.outsideErrors.push(error);
  }

  /**
   * Lists each webhook delivery under the test whose receiver path it reached, after the test's
   * requests, late ones included (global teardown has handed over the run's deliveries), in an
   * order the same seed gives again. A failed exchange is kept only where the test lists it.
   */
  private addDeliveries(): void {
    for (const delivery of [...runDeliveries(this.options.plan)].sort(deliveryOrder)) {
      const entry = delivery.test === undefined ? undefined : this.tests.get(delivery.test);
      if (!entry) continue;
      const recorded = forReport(delivery);
      this.exchanges.set(recorded.id, recorded);
      entry.outcome.exchanges.push(recorded.id);
    }
    for (const { outcome } of this.tests.values()) {
      if (outcome.failedExchange && !outcome.exchanges.includes(outcome.failedExchange)) delete outcome.failedExchange;
    }
  }

  onEnd(result: FullResult): void {
    const { plan } = this.options;
    const conformanceRun = this.conformanceRun();
    const outDir = plan.staging;
    // The run failed before any test ended, on an error outside the tests (the global setup, no test found): no
    // verdict, and a report that says why (exit 2). A run stopped early (interrupted, --max-duration) still
    // reports what it did not run.
    if (result.status === 'failed' && this.tests.size === 0 && this.outsideErrors.length > 0) {
      const why = this.outsideErrors
        .map((e) =>
          stripVTControlCharacters(e.message ?? e.value ?? 'error')
            .trim()
            .split('\n')[0]
            .replace(/^Error: /, ''),
        )
        .join('; ');
      this.write(
        outDir,
        notStartedReport({ ...notStartedTarget(plan, conformanceRun), reason: why, tool: TOOL, planes: scopeOf(plan, conformanceRun), ...narrowing(plan) }),
      );
      return;
    }
    const loss = targetLost(plan);
    const record = runOutcome(plan, result, conformanceRun, loss);
    if (loss) for (const [id, entry] of this.tests) this.tests.set(id, afterTargetLost(entry, this.ended.get(id) ?? Number.POSITIVE_INFINITY, loss));
    this.addDeliveries();
    for (const test of this.selected.filter((t) => !this.tests.has(t.id))) {
      const outcome: TestOutcome = {
        id: test.id,
        title: test.titlePath().slice(3).join(' › ') || test.title,
        file: relative(this.rootDir, test.location.file),
        status: 'not-run',
        reason: record.reason ?? 'the run ended before this test ran',
        observed: [],
        exchanges: [],
      };
      this.tests.set(test.id, { outcome, ruleIds: ruleIdsOf(test) });
    }
    const tests = this.inListingOrder();
    const report = buildReport({
      rules: contract().rules,
      tests,
      // Each test's exchanges in its own order, tests in the listing's: the same on any number of workers.
      exchanges: [...new Set(tests.flatMap((t) => t.outcome.exchanges))].map((id) => this.exchanges.get(id)!),
      target: {
        name: conformanceRun?.target.name ?? 'unknown',
        kind: conformanceRun?.target.kind ?? 'unknown',
        planes: Object.keys(conformanceRun?.target.endpoints ?? {}) as Endpoint[],
        capabilities: conformanceRun?.target.capabilities ?? [],
      },
      seed: plan.options.seed,
      tool: TOOL,
      run: record,
      scope: scopeOf(plan, conformanceRun),
      expectations: plan.options.expectations ? loadExpectations(plan.options.expectations) : undefined,
      baseline: plan.options.baseline ? { file: plan.options.baseline, report: loadReport(plan.options.baseline) } : undefined,
      untested: untestedReasons(),
    });
    this.write(outDir, report);
    writeDurations(outDir, this.durations);
  }

  /** The tests in the order the run lists them, not the order they ended in, which parallel workers change. */
  private inListingOrder(): ReportedTest[] {
    const position = new Map(this.selected.map((test, index) => [test.id, index]));
    const at = (id: string) => position.get(id) ?? Number.MAX_SAFE_INTEGER;
    return [...this.tests.values()].sort((a, b) => at(a.outcome.id) - at(b.outcome.id));
  }

  private write(outDir: string, report: ConformanceReport): void {
    writeReport(outDir, report);
    const { quiet, githubAnnotations } = this.options.plan.options;
    const options = { quiet, githubAnnotations };
    // Where the report will be: the CLI moves it there once the run has ended.
    console.log(`\n${consoleSummary(report, resolve(this.options.plan.options.out, REPORT_FILES.html), options).join('\n')}`);
  }
}

/** The rerun command of a failed test and a curl of the exchange it failed on. */
function reproduction(plan: ConformancePlan, conformanceRun: ConformanceRun | undefined, test: TestCase, failed: Exchange | undefined): Reproduction {
  const [, project = '', file = '', ...titles] = test.titlePath();
  const command = rerunCommand({ project, file, titles }, plan.rerun, plan.options.seed);
  if (!failed) return { command };
  // The embedded simulator's ports change from run to run: its URL is a variable (AGENT_SERVER_URL…), so the report stays the same.
  const endpoint = Object.entries(conformanceRun?.target.endpoints ?? {}).find(([, url]) => url === failed.base)?.[0];
  const base: Base =
    conformanceRun?.target.kind === 'embedded-simulator' ? { env: `${(endpoint ?? failed.plane).replace(/-/g, '_').toUpperCase()}_URL` } : { url: failed.base };
  const curl = curlOf(forReport(failed), base, { apiKeyEnv: conformanceRun?.target.apiKeyEnv });
  return curl ? { command, curl } : { command };
}

/** The target, seed and profile of a run whose global setup may not have named them (it failed). */
function notStartedTarget(plan: ConformancePlan, conformanceRun: ConformanceRun | undefined): Pick<NotStarted, 'target' | 'seed' | 'profile'> {
  const target = conformanceRun?.target ?? plan.embedded;
  return {
    target: {
      name: target?.name ?? plan.options.target ?? 'unknown',
      kind: target?.kind ?? 'unknown',
      planes: Object.keys(target?.endpoints ?? {}) as Endpoint[],
      capabilities: target?.capabilities ?? [],
    },
    seed: plan.options.seed,
    profile: conformanceRun?.profile ?? plan.options.profile ?? 'unknown',
  };
}

/** What narrowed the run, and its shard, as given. */
function narrowing(plan: ConformancePlan): Pick<NotStarted, 'narrowed' | 'shard'> {
  return { narrowed: plan.narrowed, ...shardOf(plan) };
}

const shardOf = ({ options: { shard } }: ConformancePlan) => (shard ? { shard: `${shard.index}/${shard.count}` } : {});

/**
 * The planes the run covered: those whose suites it selected (--plane) and whose URL the target names. Not the
 * planes a shard happened to hold tests of: a test may judge a rule of another plane.
 */
function scopeOf(plan: ConformancePlan, conformanceRun: ConformanceRun | undefined): Plane[] {
  const named = new Set(Object.keys(conformanceRun?.target.endpoints ?? {}).map((e) => planeOf(e as Endpoint)));
  return PLANES.filter((plane) => plan.planes.includes(plane) && (!conformanceRun || named.has(plane)));
}

/** Why no test checks each rule that has none (suites/untested-rules.yaml). */
function untestedReasons(): Record<string, string> {
  const file = new URL('../suites/untested-rules.yaml', import.meta.url);
  const listed = (parseYaml(readFileSync(file, 'utf8')) as { rules: { id: string; reason: string }[] }).rules;
  return Object.fromEntries(listed.map((r) => [r.id, r.reason]));
}

function ruleIdsOf(test: TestCase): string[] {
  return test.tags.map((tag) => RULE_TAG.exec(tag)?.[1]).filter((id): id is string => id !== undefined);
}

/** How the run ended: Playwright's status, and what global teardown recorded of the target. */
function runOutcome(
  plan: ConformancePlan,
  result: FullResult,
  conformanceRun: ConformanceRun | undefined,
  lost: TargetLoss | undefined,
): ConformanceRunOutcome {
  // A shard's report holds its share of the tests: a rule with none here is not-run, not untested.
  const { narrowed } = plan;
  const base = {
    profile: conformanceRun?.profile ?? 'unknown',
    ...shardOf(plan),
    ...(narrowed.length > 0 ? { narrowed } : {}),
    ...conformanceEnd(plan),
  };
  if (lost) return { status: 'target-unreachable', reason: `${lost.reason}; the tests after it did not run`, ...base };
  if (result.status === 'interrupted') return { status: 'interrupted', reason: 'the run was interrupted (Ctrl-C or SIGTERM) before this test ended', ...base };
  if (result.status === 'timedout') {
    const { maxDuration } = plan.options;
    const limit = maxDuration !== undefined ? `--max-duration ${maxDuration} s` : 'the global timeout';
    return { status: 'timed-out', reason: `the run reached ${limit} before this test ended`, ...base };
  }
  return { status: 'complete', ...base };
}

// Headers that change from run to run (clock, ports, connections) stay in the HAR only, so
// the same seed gives the same report.
const VOLATILE_HEADERS = new Set(['date', 'host', 'connection', 'keep-alive', 'x-forwarded-for']);

function forReport({ startedDateTime: _started, time: _time, base: _base, ...exchange }: Exchange): RecordedExchange {
  const keep = (headers: [string, string][]) => headers.filter(([name]) => !VOLATILE_HEADERS.has(name));
  return {
    ...exchange,
    request: { ...exchange.request, headers: keep(exchange.request.headers) },
    response: { ...exchange.response, headers: keep(exchange.response.headers) },
  };
}
