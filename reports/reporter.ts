// The Playwright reporter: gathers each test's rule tags, outcome, observations and
// exchanges, then writes the conformance report when the run ends.
import { relative, resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { contract, type Endpoint } from '../specs/contract.ts';
import { RULE_FAILED } from '../suites/checks/attribution.ts';
import type { Exchange } from '../suites/proxy/recording-proxy.ts';
import { RUN_ENV, type RunContext } from '../suites/run-context.ts';
import { runEnd } from '../suites/run-end.ts';
import { buildReport, RULE_TAG } from './build.ts';
import { consoleSummary } from './console.ts';
import { loadExpectations } from './expectations.ts';
import type { RecordedExchange, RunRecord, TestOutcome } from './model.ts';
import { REPORT_FILES, writeReport } from './write.ts';

const TOOL = { name: 'agent-platform-conformance', version: '0.1.0' };

interface Options {
  outputDir?: string;
}

export default class ConformanceReporter implements Reporter {
  private readonly tests = new Map<string, { outcome: TestOutcome; ruleIds: string[]; failedRules: string[] }>();
  private readonly exchanges = new Map<string, RecordedExchange>();
  private rootDir = process.cwd();
  /** Every test the run selected: those that never end (a stopped run) are reported not-run. */
  private selected: TestCase[] = [];

  constructor(private readonly options: Options = {}) {}

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.rootDir = config.rootDir;
    this.selected = suite.allTests();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // Runtime annotations show in both lists in newer Playwright versions: keep each once.
    const seen = new Set<string>();
    const annotations = [...test.annotations, ...(result.annotations ?? [])].filter((a) => {
      const key = `${a.type}\u0000${a.description ?? ''}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const ruleIds = ruleIdsOf(test);
    const recorded: RecordedExchange[] = [];
    for (const attachment of result.attachments) {
      if (attachment.name !== 'apc-exchanges' || !attachment.body) continue;
      for (const exchange of JSON.parse(attachment.body.toString('utf8')) as Exchange[]) recorded.push(forReport(exchange));
    }
    for (const exchange of recorded) this.exchanges.set(exchange.id, exchange);
    const skip = annotations.filter((a) => a.type === 'skip' || a.type === 'fixme').map((a) => a.description).filter(Boolean);
    const outcome: TestOutcome = {
      id: test.id,
      title: test.titlePath().slice(3).join(' › ') || test.title,
      file: relative(this.rootDir, test.location.file),
      status: result.status,
      error: result.errors.length > 0 ? result.errors.map((e) => stripAnsi(e.message ?? e.value ?? 'error')).join('\n\n') : undefined,
      reason: result.status === 'skipped' ? skip.join('; ') || 'skipped' : undefined,
      observed: annotations.filter((a) => a.type === 'observed' && a.description).map((a) => a.description!),
      exchanges: recorded.map((e) => e.id),
    };
    const failedRules = annotations.filter((a) => a.type === RULE_FAILED && a.description).map((a) => a.description!);
    this.tests.set(test.id, { outcome, ruleIds, failedRules });
  }

  onEnd(result: FullResult): void {
    const run = process.env[RUN_ENV] ? (JSON.parse(process.env[RUN_ENV]!) as RunContext) : undefined;
    const outDir = resolve(this.options.outputDir ?? run?.outDir ?? process.env.APC_OUT ?? 'conformance-report');
    const record = runRecord(result, run);
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
      this.tests.set(test.id, { outcome, ruleIds: ruleIdsOf(test), failedRules: [] });
    }
    const report = buildReport({
      rules: contract().rules,
      tests: [...this.tests.values()],
      exchanges: [...this.exchanges.values()],
      target: {
        name: run?.target.name ?? 'unknown',
        kind: run?.target.kind ?? 'unknown',
        planes: Object.keys(run?.target.planes ?? {}) as Endpoint[],
        capabilities: run?.target.capabilities ?? [],
      },
      seed: run?.seed ?? 'unknown',
      tool: TOOL,
      run: record,
      expectations: process.env.APC_EXPECTATIONS ? loadExpectations(process.env.APC_EXPECTATIONS) : undefined,
    });
    writeReport(outDir, report);
    console.log(`\n${consoleSummary(report, resolve(outDir, REPORT_FILES.html)).join('\n')}`);
  }
}

function ruleIdsOf(test: TestCase): string[] {
  return test.tags.map((tag) => RULE_TAG.exec(tag)?.[1]).filter((id): id is string => id !== undefined);
}

/** How the run ended: Playwright's status, and what global teardown recorded of the target. */
function runRecord(result: FullResult, run: RunContext | undefined): RunRecord {
  const base = { profile: run?.profile ?? 'unknown', ...runEnd() };
  if (result.status === 'interrupted') return { status: 'interrupted', reason: 'the run was interrupted (Ctrl-C or SIGTERM) before this test ended', ...base };
  if (result.status === 'timedout') {
    const limit = process.env.APC_MAX_DURATION ? `--max-duration ${process.env.APC_MAX_DURATION} s` : 'the global timeout';
    return { status: 'timed-out', reason: `the run reached ${limit} before this test ended`, ...base };
  }
  return { status: 'complete', ...base };
}

// Headers that change from run to run (clock, ports, connections) stay in the HAR only, so
// the same seed gives the same report.
const VOLATILE_HEADERS = new Set(['date', 'host', 'connection', 'keep-alive', 'x-forwarded-for']);

function forReport({ startedDateTime: _started, time: _time, ...exchange }: Exchange): RecordedExchange {
  const keep = (headers: [string, string][]) => headers.filter(([name]) => !VOLATILE_HEADERS.has(name));
  return { ...exchange, request: { ...exchange.request, headers: keep(exchange.request.headers) }, response: { ...exchange.response, headers: keep(exchange.response.headers) } };
}

function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
