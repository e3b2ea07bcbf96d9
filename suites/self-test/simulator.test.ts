// The suites against the embedded simulator: every tested rule passes, and the same
// seed gives the same report.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceRun, failedRules } from './run-cli.ts';

test('every rule the suites test passes against the simulator, twice with the same report', async () => {
  const first = await conformanceRun(['--plane', 'agent-server', '--seed', '7']);
  expect(failedRules(first.report), first.stdout).toEqual([]);
  expect(first.code).toBe(0);
  const tested = first.report.rules.filter((r) => r.tests.length > 0 && r.area !== 'runs');
  expect(tested.length).toBeGreaterThan(30);
  for (const rule of tested.filter((r) => r.area === 'threads' || r.area === 'state')) {
    expect(['pass', 'observed'], `${rule.id}: ${rule.verdict}`).toContain(rule.verdict);
  }
  const second = await conformanceRun(['--plane', 'agent-server', '--seed', '7']);
  expect(readFileSync(join(second.out, 'report.json'), 'utf8')).toBe(readFileSync(join(first.out, 'report.json'), 'utf8'));
});
