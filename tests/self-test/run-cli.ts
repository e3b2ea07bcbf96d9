// Runs the CLI in a child process, as a user would: a command to its end and the report it wrote, or the proxy, until it is stopped.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import type { Mutation } from './broken-target.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'bin', 'agent-platform-conformance.mjs');
/** Names one `playwright test` of the project (playwright.config.ts sets it; its workers inherit it): one clean run each. */
export const INVOCATION_VARIABLE = 'APC_SELF_TEST_INVOCATION';
/** The report of the suites against a broken target that breaks nothing (clean-run.ts). */
export const CLEAN_RUN = join(ROOT, 'test-results', 'clean-run', 'report.json');
/** The broken-target lanes' trial groups (trial-groups.ts), made once by the clean run's setup. */
export const TRIAL_GROUPS = join(ROOT, 'test-results', 'clean-run', 'trial-groups.json');
/** Where each lane of the broken-target self-test writes what its mutations did (mutation-score.test.ts reads them). */
export const SCORE_DIR = join(ROOT, 'test-results', 'mutation-score');
/** Where each lane of the conformant-variant self-test writes what its variants did. */
export const VARIANT_SCORE_DIR = join(ROOT, 'test-results', 'variant-score');

/** The mutations a broken-target run tries (trial-groups.ts, sliceOf): npm test a quarter, npm run test:mutations `all`. */
export const MUTATION_SLICE = process.env.APC_MUTATION_SLICE ?? '1/4';

/**
 * The options of a self-test's run against a target it breaks or shakes on purpose, which reads verdicts and
 * error messages, never stacks: V8's own stacks (no source maps' CPU), and workers kept after a failed test
 * (a new one costs a second or two; the report reads each test's actual status either way).
 */
export const SELF_TEST_RUN = ['--lean-stacks', '--keep-workers'];

/** What one mutation did: killed when the rules it failed are exactly those it breaks. */
export interface TrialOutcome {
  name: string;
  breaks: string[];
  failed: string[];
  killed: boolean;
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment without what the Playwright worker running this test set, plus `env`. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('APC_') && !name.startsWith('PW_') && name !== 'TEST_WORKER_INDEX' && name !== 'TEST_PARALLEL_INDEX',
    ),
  );
  return { ...clean, ...env };
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCommand(process.execPath, [CLI, ...args], { env });
}

/** Any command, to its end, in `cwd` (default the repository), with `input` on its stdin and `env` over cliEnv(). */
export function runCommand(command: string, args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: cliEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    // A command may end without reading its input (node --version): the write then fails with
    // EPIPE. That is no failure of the command, and unhandled it would fail the test that ran it.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
  });
}

/**
 * A conformance run into a fresh folder; answers the run and its report. It takes one worker
 * unless `args` say otherwise: Playwright runs several of the project's tests side by side
 * already, and a worker more per run would only add its start-up to a busy machine.
 */
export async function conformanceRun(args: string[], env: Record<string, string> = {}): Promise<CliRun & { report: ConformanceReport; out: string }> {
  const out = mkdtempSync(join(tmpdir(), 'apc-run-'));
  const workers = args.includes('--workers') ? [] : ['--workers', '1'];
  const run = await runCli(['run', '--out', out, ...workers, ...args], env);
  let report: ConformanceReport;
  try {
    report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
  } catch {
    throw new Error(`no report from: run ${args.join(' ')} (exit ${run.code})\n${run.stdout}\n${run.stderr}`);
  }
  return { ...run, report, out };
}

export function failedRules(report: ConformanceReport): string[] {
  return report.rules
    .filter((r) => r.verdict === 'fail')
    .map((r) => r.id)
    .sort();
}

/** The rules a mutation's notJudged names that passed: a pass on a read that answers nothing. */
export function passedOfNotJudged(report: ConformanceReport, mutation: Pick<Mutation, 'notJudged'>): string[] {
  return report.rules.filter((r) => mutation.notJudged?.includes(r.id) && r.verdict === 'pass').map((r) => r.id);
}

/** A `proxy` command started as a user would start it, once it listens. */
export interface StartedProxy {
  child: ChildProcessWithoutNullStreams;
  /** The URL it listens at, from its first line. */
  url: string;
  /** What it printed so far, stdout and stderr in the order they came. */
  output(): string;
  /** Its exit code, once it exited. */
  exited: Promise<number | null>;
}

/**
 * Starts `proxy …args` and answers once it prints where it listens. It waits as long as the
 * test may: the CLI's start-up takes seconds more on a loaded machine, and a fixed deadline
 * shorter than that fails a test for the machine's load. It rejects, with what the proxy
 * printed, when the proxy exits first.
 */
export function startProxy(args: string[]): Promise<StartedProxy> {
  const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: ROOT, env: cliEnv() });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk;
      const url = /^\[proxy\] (http:\/\/\S+) →/m.exec(out)?.[1];
      if (url) resolve({ child, url, output: () => out, exited });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then((code) => reject(new Error(`proxy exited with ${code} before it listened:\n${out}`)));
  });
}
