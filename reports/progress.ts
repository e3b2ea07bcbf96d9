// Progress while the suites run, and nothing more: a line per test (rewritten in place on a
// terminal), or dots (run --quiet, and in CI). Playwright's own line and dot reporters end with
// their tally of tests ("39 skipped, 189 passed"), which reads as a second outcome beside the
// conformance verdicts: the count line is the conformance reporter's alone. Errors outside any
// test (a global setup that failed, no test found) are printed here, so a run that never
// started says why. A failure the expectations file (run --expectations) lists is counted by the
// conformance reporter, not listed: only an unexpected failure gets its ✘ line. A run never sits
// silent: after QUIET_MS with nothing printed, a line names each test under way and what it waits
// for (a wait in real time is a step of the test, harness/time.ts).
import { redactRunError } from '../harness/proxy/redact.ts';
import { attachedEvidence } from '../harness/test-evidence.ts';
import { WAIT_STEP } from '../harness/time.ts';
import { type Expectation, isExpected, loadExpectations } from './expectations.ts';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import { stripVTControlCharacters } from 'node:util';

interface Options {
  /** dots: one character per test; line: the test under way. */
  style?: 'line' | 'dots';
  /** The expectations file of the run, if any: the failures it lists are not shown as failures. */
  expectations?: string;
}

/** The stream progress is written to: a terminal rewrites the current line, a log gets whole lines. */
export interface Output {
  write(text: string): void;
  isTTY?: boolean;
  columns?: number;
}

const DOTS_PER_LINE = 80;
/** How long the progress may say nothing before it names what the tests under way are doing. */
export const QUIET_MS = 30_000;

/** A test under way: its number in the run, when it began, and the wait it is in, if any. */
interface UnderWay {
  index: number;
  since: number;
  wait?: { step: TestStep; since: number };
}

/** Playwright's error when its global timeout ends the run. */
const GLOBAL_TIMEOUT = /^Timed out waiting ([\d.]+)s for the .+ to run$/;

/** Each dot's meaning, in the order the legend after the dots lists those that appeared. */
const MARKS = { '·': 'passed', F: 'failed', T: 'timed out', x: 'failed as expected', '°': 'skipped' } as const;
type Mark = keyof typeof MARKS;

export default class ProgressReporter implements Reporter {
  private total = 0;
  private started = 0;
  private dots = 0;
  /** The marks the dots have shown, explained once they end. */
  private readonly marks = new Set<Mark>();
  /** Something is on the current line that a full line must first end (a dot row, a rewritten line). */
  private open = false;
  /** The expectations file's entries, by rule. */
  private readonly expectations: Map<string, Expectation>;
  private readonly underWay = new Map<TestCase, UnderWay>();
  private lastWrite: number;
  private quiet?: NodeJS.Timeout;

  constructor(
    private readonly options: Options = {},
    private readonly out: Output = process.stdout,
    private readonly err: Output = process.stderr,
    private readonly now: () => number = Date.now,
  ) {
    this.lastWrite = now();
    const listed = options.expectations ? loadExpectations(options.expectations).expected : [];
    this.expectations = new Map(listed.map((e) => [e.rule, e]));
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.total = suite.allTests().length;
    if (this.total === 0) return;
    const workers = (config.metadata.actualWorkers as number | undefined) ?? config.workers;
    const shard = config.shard ? `, shard ${config.shard.current} of ${config.shard.total}` : '';
    this.line(`Running ${this.total} tests using ${workers} worker${workers === 1 ? '' : 's'}${shard}`);
    this.quiet = setInterval(() => this.tick(), 1_000);
    this.quiet.unref();
  }

  onTestBegin(test: TestCase): void {
    this.started += 1;
    this.underWay.set(test, { index: this.started, since: this.now() });
    if (this.options.style === 'dots') return;
    const text = `[${this.started}/${this.total}] ${title(test)}`;
    if (this.out.isTTY) {
      this.out.write(`\r\u001b[2K${text.slice(0, Math.max(20, (this.out.columns ?? 100) - 1))}`);
      this.lastWrite = this.now();
      this.open = true;
    } else this.line(text);
  }

  onStepBegin(test: TestCase, _result: TestResult, step: TestStep): void {
    const under = this.underWay.get(test);
    if (under && step.category === 'test.step' && step.title.startsWith(WAIT_STEP)) under.wait = { step, since: this.now() };
  }

  onStepEnd(test: TestCase, _result: TestResult, step: TestStep): void {
    const under = this.underWay.get(test);
    if (under?.wait?.step === step) under.wait = undefined;
  }

  /** After QUIET_MS with nothing printed: a line per test under way, naming what it waits for and how long it has. */
  tick(): void {
    const now = this.now();
    if (now - this.lastWrite < QUIET_MS) return;
    for (const [test, { index, since, wait }] of this.underWay) {
      const doing = wait ? `${wait.step.title}, ${seconds(now - wait.since)} so far` : `running for ${seconds(now - since)}`;
      this.line(`  … [${index}/${this.total}] ${title(test)}: ${doing}`);
    }
    this.lastWrite = now;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.underWay.delete(test);
    const failed = result.status === 'failed' || result.status === 'timedOut' || result.status === 'interrupted';
    const expected = failed && this.failedAsExpected(test, result);
    if (this.options.style === 'dots') {
      if (this.dots === DOTS_PER_LINE) this.endLine();
      const mark: Mark = result.status === 'skipped' ? '°' : expected ? 'x' : result.status === 'timedOut' ? 'T' : failed ? 'F' : '·';
      this.out.write(mark);
      this.marks.add(mark);
      this.lastWrite = this.now();
      this.dots += 1;
      this.open = true;
      return;
    }
    // The failure's message comes with its rule in the conformance summary at the end.
    if (failed && !expected) this.line(`  ✘ ${title(test)} (${result.status === 'timedOut' ? 'timed out' : result.status})`);
  }

  /** Whether every rule the test failed (those it names, or else all it is tagged with) is expected to fail. */
  private failedAsExpected(test: TestCase, result: TestResult): boolean {
    if (this.expectations.size === 0) return false;
    const named = (attachedEvidence(result.attachments)?.failures ?? []).map((f) => f.rule);
    const rules = named.length > 0 ? named : test.tags.map((tag) => tag.replace(/^@/, ''));
    return rules.length > 0 && rules.every((rule) => isExpected('fail', this.expectations.get(rule)));
  }

  onStdOut(chunk: string | Buffer): void {
    this.endLine();
    this.out.write(chunk.toString());
  }

  onStdErr(chunk: string | Buffer): void {
    this.endLine();
    this.err.write(chunk.toString());
  }

  onError(error: TestError): void {
    redactRunError(error);
    this.endLine();
    // The CLI sets Playwright's global timeout from --max-duration alone: said in the option's words.
    const stopped = GLOBAL_TIMEOUT.exec(stripVTControlCharacters(error.message ?? ''));
    if (stopped) {
      this.err.write(`The run reached --max-duration ${stopped[1]} s: it stops now, and the report counts what did not run as not-run (exit 3).\n`);
      return;
    }
    const text = formatError(error);
    // Playwright colours its code snippet; a log file gets the plain text.
    this.err.write(`${this.err.isTTY ? text : stripVTControlCharacters(text)}\n`);
  }

  onEnd(_result: FullResult): void {
    clearInterval(this.quiet);
    this.endLine();
    const shown = (Object.keys(MARKS) as Mark[]).filter((mark) => this.marks.has(mark));
    if (shown.length > 0) this.line(shown.map((mark) => `${mark} ${MARKS[mark]}`).join(', '));
  }

  private line(text: string): void {
    this.endLine();
    this.out.write(`${text}\n`);
    this.lastWrite = this.now();
  }

  private endLine(): void {
    if (!this.open) return;
    this.out.write(this.out.isTTY && this.options.style !== 'dots' ? '\r\u001b[2K' : '\n');
    this.open = false;
    this.dots = 0;
  }
}

function seconds(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

/** `[plane] › file › title`, as Playwright lists a test. */
function title(test: TestCase): string {
  const [, project, file, ...rest] = test.titlePath();
  return `[${project}] › ${file}:${test.location.line} › ${rest.join(' › ')}`;
}

/** An error outside the tests: its message, the code it points at, and where. */
function formatError(error: TestError): string {
  const location = error.location ? `\n    at ${error.location.file}:${error.location.line}:${error.location.column}` : '';
  const message = error.message ?? error.value ?? 'unknown error';
  return [/^\w*Error\b/.test(message) ? message : `Error: ${message}`, error.snippet].filter(Boolean).join('\n\n') + location;
}
