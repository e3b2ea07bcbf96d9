// The strict typecheck of the whole project (`npx tsc --noEmit -p .`), as one of the tests: it then
// runs beside the others, where before them it held up a core of CI's two for the time it took.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { ROOT, runCommand } from './self-test/run-cli.ts';

test('the project typechecks (tsc --noEmit, strict)', async () => {
  // Generous: it shares the machine with every test that starts beside it.
  test.setTimeout(10 * 60_000);
  const tsc = await runCommand(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '.']);
  expect(tsc.stdout + tsc.stderr, "tsc's diagnostics").toBe('');
  expect(tsc.code).toBe(0);
});
