// `run --target` against a `simulate` started as a user starts it (real clock ×1, admin path on):
// the run says at once what that clock costs, resets the simulator faster (capability reset), and
// runs at the pace the simulator answered. A revision's build, 90 s at ×1, is the slow part.
import { expect, test } from '@playwright/test';
import { RUN_TIME_SCALE } from '../../harness/simulator-pace.ts';
import type { SimulatorInfo } from '../../specs/types/simulator-admin.ts';
import { conformanceRun } from '../self-test/run-cli.ts';
import { type StandIn, startStandIn } from '../self-test/stand-in.ts';

let standIn: StandIn | undefined;
test.afterAll(() => standIn?.stop());

test('a run against a simulator on the real clock ×1 says what it costs and resets it faster', async () => {
  test.setTimeout(180_000);
  standIn = await startStandIn(['--log-level', 'error']);
  const url = standIn.planes['agent-server'];
  const run = await conformanceRun(['--target', url, '--grep', '@REVISION-POLL-DEPLOYED', '--quiet']);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const notice = run.stdout.split('\n')[0];
  expect(notice).toContain(`simulator at ${url} runs on the real clock ×1`);
  expect(notice).toContain('a revision builds in 90 s');
  expect(notice).toContain(`the run resets it at ×${RUN_TIME_SCALE}`);
  expect(notice).toContain('simulate --clock virtual');
  // Every output names the pace the run kept, which is the one the simulator now answers.
  expect(run.report.target.name).toBe(`simulator at ${url} (real clock ×${RUN_TIME_SCALE})`);
  const info = (await (await fetch(`${url}/__sim/info`)).json()) as SimulatorInfo;
  expect(info.clock).toEqual({ kind: 'real', time_scale: RUN_TIME_SCALE });
  expect(run.report.rules.find((r) => r.id === 'REVISION-POLL-DEPLOYED')?.verdict).toBe('pass');
});
