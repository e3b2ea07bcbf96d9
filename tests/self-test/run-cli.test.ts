// The helpers that run the CLI and other commands for the project's tests.
import { expect, test } from '@playwright/test';
import { runCommand } from './run-cli.ts';

test('a command that ends without reading its input is run to its end: the unread input is no error', async () => {
  // More than a pipe holds, so the write is still going when the command ends, and fails with EPIPE.
  for (let i = 0; i < 3; i++) {
    expect(await runCommand(process.execPath, ['--version'], { input: 'x'.repeat(1 << 20) })).toEqual({ code: 0, stdout: `${process.version}\n`, stderr: '' });
  }
  expect((await runCommand(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'read' })).stdout, 'input that is read arrives').toBe(
    'read',
  );
});
