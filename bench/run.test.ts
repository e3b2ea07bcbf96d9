// The bench's command line: --help prints the usage and exits 0; an unknown option or group is a usage error (exit 2), before anything is measured.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { ROOT, runCommand } from '../tests/self-test/run-cli.ts';

const bench = (...args: string[]) => runCommand(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), ...args]);

test('--help prints the options and the groups', async () => {
  const help = await bench('--help');
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toContain('Usage: npm run bench');
  expect(help.stdout).toContain('http, ingestion, runs, tests');
  expect((await bench('-h')).stdout).toBe(help.stdout);
});

test('an unknown option or group exits 2 and says which', async () => {
  const option = await bench('--quik');
  expect(option.code).toBe(2);
  expect(option.stderr).toContain("bench: Unknown option '--quik'");
  expect(option.stderr).toContain('Usage: npm run bench');
  const group = await bench('--only', 'htp');
  expect(group.code).toBe(2);
  expect(group.stderr).toContain('bench: unknown --only htp');
});
