// The command line as a user meets it: help, clear refusals with exit code 2.
import { expect, test } from '@playwright/test';
import { runCli } from '../suites/self-test/run-cli.ts';

test('--help explains every command and the exit codes', async () => {
  const main = await runCli(['--help']);
  expect(main.code).toBe(0);
  for (const command of ['run', 'simulate', 'proxy']) expect(main.stdout).toContain(command);
  const run = await runCli(['run', '--help']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('--target');
  expect(run.stdout).toContain('Exit codes');
});

test('usage errors exit 2 and say what is wrong', async () => {
  const unknown = await runCli(['launch']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("unknown command 'launch'");
  const badOption = await runCli(['run', '--targett', 'x']);
  expect(badOption.code).toBe(2);
  expect(badOption.stderr).toContain('--targett');
  const badTarget = await runCli(['run', '--target', 'no-such-file.yaml']);
  expect(badTarget.code).toBe(2);
  expect(badTarget.stderr + badTarget.stdout).toContain('neither an http(s) URL nor an existing config file');
  const badPlane = await runCli(['run', '--plane', 'moon']);
  expect(badPlane.code).toBe(2);
});

test('simulate prints its URLs and serves the admin path', async () => {
  const { spawn } = await import('node:child_process');
  const { CLI, ROOT } = await import('../suites/self-test/run-cli.ts');
  const child = spawn(process.execPath, [CLI, 'simulate', '--seed', 's1'], { cwd: ROOT });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const m = /agent-server\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`simulate exited: ${out}`)));
    });
    const info = (await (await fetch(`${url}/__sim/info`)).json()) as { seed: string; capabilities: string[] };
    expect(info.seed).toBe('s1');
    expect(info.capabilities).toContain('virtual-clock');
  } finally {
    child.kill('SIGINT');
  }
});
