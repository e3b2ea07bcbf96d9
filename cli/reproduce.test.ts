// A failure's reproduction lines, used as a user would: a run against a broken target fails a
// MUST rule; the command its report gives reruns that test alone (and it fails again), and the
// curl, run through a shell, replays the failed request against the target.
import { expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { startBrokenTarget } from '../tests/self-test/broken-target.ts';
import { MUTATIONS } from '../tests/self-test/mutations/index.ts';
import { CLI, cliEnv, conformanceRun, ROOT } from '../tests/self-test/run-cli.ts';

const sh = promisify(execFile);

test('a failed test reruns alone from its report, and its curl replays the failed request', async () => {
  test.setTimeout(120_000);
  const target = await startBrokenTarget(MUTATIONS['metadata-loses-nested']);
  try {
    const run = await conformanceRun(['--target', target.config, '--plane', 'agent-server', '--grep', '@THREAD-CREATE-METADATA'], target.env);
    expect(run.code, run.stdout).toBe(1);
    const failed = run.report.rules.find((r) => r.id === 'THREAD-CREATE-METADATA')!.tests.find((t) => t.status === 'failed')!;
    const { command, curl } = failed.reproduce!;
    // Paths relative to where the run was started (the repository here), and a folder of its own: the run's report stays.
    expect(command).toContain(
      `--target ${relative(ROOT, target.config)} --out ${relative(ROOT, run.out)}-rerun --seed ${run.report.seed} --plane agent-server --grep `,
    );
    expect(readFileSync(join(run.out, 'summary.md'), 'utf8')).toContain(command.split('\n')[0]);

    // The command, as a shell reads it (the CLI in place of npx), selects this one test.
    const out = join(run.out, 'rerun');
    const rerun = await sh('/bin/sh', ['-c', `${command.replace(/^npx agent-platform-conformance/, `node ${CLI}`)} --out ${out} --quiet || true`], {
      cwd: ROOT,
      env: cliEnv(target.env),
    });
    const again = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
    const ran = again.rules.flatMap((r) => r.tests).filter((t) => t.status !== 'not-run');
    expect(new Set(ran.map((t) => t.id)), rerun.stdout).toEqual(new Set([failed.id]));
    expect(ran[0].status).toBe('failed');

    // The curl reaches the target and gets the answer the test judged.
    const recorded = run.report.exchanges[failed.failedExchange!];
    const replay = await sh('/bin/sh', ['-c', `${curl} -s -o /dev/null -w '%{http_code}'`], { env: { PATH: process.env.PATH } });
    expect(Number(replay.stdout)).toBe(recorded.response.status);
  } finally {
    await target.close();
  }
});
