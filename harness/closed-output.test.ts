import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const MODULE = new URL('./closed-output.ts', import.meta.url).href;

/**
 * A process that writes a line to stdout and stderr every 5 ms for 300 ms, then says `done` and
 * how many error listeners stdout has on a third pipe and exits 0; it calls outliveClosedOutput
 * (twice) first when `outlive`. Its reader of stdout and stderr leaves at the first line.
 */
async function writerWhoseReaderLeaves(outlive: boolean): Promise<{ code: number | null; said: string }> {
  const code = `
    import { writeSync } from 'node:fs';
    ${outlive ? `const { outliveClosedOutput } = await import(${JSON.stringify(MODULE)}); outliveClosedOutput(); outliveClosedOutput();` : ''}
    const timer = setInterval(() => { process.stdout.write('line\\n'); process.stderr.write('line\\n'); }, 5);
    setTimeout(() => { clearInterval(timer); writeSync(3, 'done ' + process.stdout.listenerCount('error')); }, 300);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let said = '';
  child.stdio[3]!.on('data', (chunk) => (said += chunk));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const [, stdout, stderr] = child.stdio;
  await Promise.race([once(stdout!, 'data'), exited]);
  stdout!.destroy();
  stderr!.destroy();
  const [exit] = await exited;
  return { code: exit, said };
}

test('with its output closed, a process goes on to the end and its exit status; without, EPIPE ends it', async () => {
  expect(await writerWhoseReaderLeaves(true)).toEqual({ code: 0, said: 'done 1' });
  // The same writer without the call: the failure this module exists for.
  expect(await writerWhoseReaderLeaves(false)).toMatchObject({ code: 1, said: '' });
});
