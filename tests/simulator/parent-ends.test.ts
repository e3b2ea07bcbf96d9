// `simulate` under a parent process that dies, as npx stopped by SIGTERM or a test runner that
// crashed: the simulator stops as on SIGTERM (its --persist save included) and frees its ports,
// even though its output went to the dead parent through a pipe no one reads any more. With
// --detached it keeps serving until it is told to stop.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Snapshot } from '../../specs/types/simulator-admin.ts';
import { CLI, cliEnv, ROOT } from '../self-test/run-cli.ts';

/** The simulators these tests started, stopped at the end if a failed test left one running. */
const started: number[] = [];
test.afterAll(() => {
  for (const pid of started) if (!ended(pid)) process.kill(pid, 'SIGTERM');
});

/**
 * A parent process that starts `simulate` with `args`, reads its output through a pipe and
 * passes it on, first with the simulator's pid: answers the parent, the simulator's pid and its
 * agent-server URL once it is ready.
 */
async function underParent(args: string[]): Promise<{ parent: ChildProcessWithoutNullStreams; pid: number; agentServer: string }> {
  const parentCode = `
    const child = require('node:child_process').spawn(process.execPath, ${JSON.stringify([CLI, 'simulate', ...args])}, { stdio: ['ignore', 'pipe', 'inherit'] });
    console.log('pid ' + child.pid);
    child.stdout.pipe(process.stdout);`;
  const parent = spawn(process.execPath, ['-e', parentCode], { cwd: ROOT, env: cliEnv() });
  let stdout = '';
  parent.stdout.on('data', (chunk) => (stdout += chunk));
  await expect.poll(() => stdout.includes('Ctrl-C to stop'), { timeout: 30_000 }).toBe(true);
  const pid = Number(/^pid (\d+)/.exec(stdout)![1]);
  started.push(pid);
  return { parent, pid, agentServer: /LANGGRAPH_API_URL=(\S+)/.exec(stdout)![1] };
}

function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Whether anything listens at `url`: an answer, or a refused connection. */
const listening = (url: string) =>
  fetch(`${url}/ok`).then(
    () => true,
    () => false,
  );

const json = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

test('simulate stops when its parent dies: it saves its state as on SIGTERM, even while it logs to a pipe no one reads, and frees its port', async () => {
  const persist = join(mkdtempSync(join(tmpdir(), 'apc-parent-')), 'state.json');
  const { parent, pid, agentServer } = await underParent(['--persist', persist, '--log-level', 'info']);
  const thread = await (await fetch(`${agentServer}/threads`, json({}))).json();
  // A run that ends after the simulator has seen its parent go: the save waits for it, and the
  // request log writes the join's line to the dead parent's pipe meanwhile.
  const run = await (await fetch(`${agentServer}/threads/${thread.thread_id}/runs`, json({ assistant_id: 'agent', input: { delay_ms: 3000 } }))).json();
  const joined = fetch(`${agentServer}/threads/${thread.thread_id}/runs/${run.run_id}/join`);
  parent.kill('SIGKILL');

  expect((await joined).status, 'it answers what it was asked before it stops').toBe(200);
  await expect.poll(() => ended(pid), { timeout: 20_000 }).toBe(true);
  expect(await listening(agentServer)).toBe(false);
  expect(existsSync(persist), 'the state was saved, as on SIGTERM').toBe(true);
  const saved = JSON.parse(readFileSync(persist, 'utf8')) as Snapshot;
  expect(JSON.stringify(saved.planes.agent_server)).toContain(run.run_id);
});

test('simulate whose output is closed goes on answering, and stops on SIGTERM with its state saved', async () => {
  const persist = join(mkdtempSync(join(tmpdir(), 'apc-closed-output-')), 'state.json');
  const child = spawn(process.execPath, [CLI, 'simulate', '--persist', persist, '--log-level', 'debug'], { cwd: ROOT, env: cliEnv() });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await expect.poll(() => stdout.includes('Ctrl-C to stop'), { timeout: 30_000 }).toBe(true);
  started.push(child.pid!);
  const agentServer = /LANGGRAPH_API_URL=(\S+)/.exec(stdout)![1];
  child.stdout.destroy();
  child.stderr.destroy();
  // Each answer writes a request log line to the closed pipe: the first fails with EPIPE.
  const threads = [];
  for (let i = 0; i < 5; i++) {
    const created = await fetch(`${agentServer}/threads`, json({}));
    expect(created.status).toBe(200);
    threads.push(((await created.json()) as { thread_id: string }).thread_id);
  }
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  const saved = JSON.stringify((JSON.parse(readFileSync(persist, 'utf8')) as Snapshot).planes.agent_server);
  for (const id of threads) expect(saved).toContain(id);
});

test('simulate --detached outlives its parent, until SIGTERM', async () => {
  const { parent, pid, agentServer } = await underParent(['--detached']);
  parent.kill('SIGKILL');
  await new Promise((resolve) => parent.on('exit', resolve));
  // Twice as long as it takes a simulator without --detached to see its parent gone (cli/args.ts).
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(ended(pid)).toBe(false);
  expect(await listening(agentServer)).toBe(true);
  process.kill(pid, 'SIGTERM');
  await expect.poll(() => ended(pid), { timeout: 20_000 }).toBe(true);
  expect(await listening(agentServer)).toBe(false);
});
