// The interop matrix's two runs of the embedded simulator: an earlier one in which a broken target,
// named as the embedded simulator, fails one rule, and a clean one. They are made beside the real
// targets' runs (the `real-targets` project), so that the matrix test, which waits for those, only reads.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import { startBrokenTarget } from '../self-test/broken-target.ts';
import { MUTATIONS } from '../self-test/mutations/index.ts';
import { runCli } from '../self-test/run-cli.ts';
import { EARLIER, EARLIER_GREP, EMBEDDED, MUTATION, NOW, OUT } from './embedded-runs.ts';

test('the embedded simulator twice, for the matrix: earlier behind a broken target that fails one rule, now clean', async () => {
  test.setTimeout(10 * 60_000);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const mutation = MUTATIONS[MUTATION];
  expect(mutation.breaks, 'the mutation breaks one rule').toHaveLength(1);
  const broken = mutation.breaks[0];
  const target = await startBrokenTarget(mutation);
  const [earlier, now] = await (async () => {
    try {
      writeFileSync(target.config, toYaml({ ...(parseYaml(readFileSync(target.config, 'utf8')) as object), name: EMBEDDED }));
      return await Promise.all([
        runCli(
          ['run', '--target', target.config, ...target.args, '--plane', 'agent-server', '--grep', EARLIER_GREP, '--workers', '1', '--quiet', '--out', EARLIER],
          target.env,
        ),
        runCli(['run', '--plane', 'agent-server', '--workers', '1', '--quiet', '--out', NOW]),
      ]);
    } finally {
      await target.close();
    }
  })();
  for (const [run, folder] of [
    [earlier, EARLIER],
    [now, NOW],
  ] as const)
    expect(existsSync(join(folder, 'report.json')), `no report in ${folder} (exit ${run.code}):\n${run.stdout}\n${run.stderr}`).toBe(true);
  expect(now.code, `${now.stdout}\n${now.stderr}`).toBe(0);
  const earlierReport = JSON.parse(readFileSync(join(EARLIER, 'report.json'), 'utf8')) as ConformanceReport;
  expect(earlierReport.rules.filter((r) => r.verdict === 'fail').map((r) => r.id)).toEqual([broken]);
  const brokenLevel = earlierReport.rules.find((r) => r.id === broken)?.level;
  expect(earlier.code, `a failed MUST rule fails the run, a SHOULD rule warns\n${earlier.stdout}\n${earlier.stderr}`).toBe(brokenLevel === 'MUST' ? 1 : 0);
});
