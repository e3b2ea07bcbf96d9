// A target without the EU address (its config names no platform-api-eu URL) has each rate-limit row judged in
// the US: only the EU half is skipped, declared (§1: the EU region is a plane of its own).
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startBrokenTarget } from '../self-test/broken-target.ts';
import { conformanceRun } from '../self-test/run-cli.ts';

test('a target config without platform-api-eu has a rate-limit row judged in the US, its EU half skipped as declared', async () => {
  const target = await startBrokenTarget(() => undefined);
  try {
    const config = parseYaml(readFileSync(target.config, 'utf8')) as { planes: Record<string, string> };
    delete config.planes['platform-api-eu'];
    writeFileSync(target.config, toYaml(config));
    const { report } = await conformanceRun(['--target', target.config, ...target.args, '--plane', 'platform-api', '--grep', '@RATE-STATS-API-KEY']);
    const rule = report.rules.find((r) => r.id === 'RATE-STATS-API-KEY')!;
    const outcomes = rule.tests.map((t) => ({ region: t.title.slice(0, 2), status: t.status, skip: t.skip?.kind }));
    expect(outcomes.sort((a, b) => a.region.localeCompare(b.region))).toEqual([
      { region: 'EU', status: 'skipped', skip: 'declared' },
      { region: 'US', status: 'passed', skip: undefined },
    ]);
    expect(rule.verdict).toBe('pass');
  } finally {
    await target.close();
  }
});
