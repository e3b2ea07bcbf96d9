// Cancelling a run: a path the spec does not show, which the service serves and the official SDK
// calls (runs.cancel). interrupt and rollback end the run as the multitask strategies of those names
// do (§3). A target that does not serve it declares it in not_shown_operations, and its test is skipped.
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import { expectEnded, longRun, newThread, onceShown, readRun } from './runs-steps.ts';

test('cancel with action interrupt ends the run in progress, which is kept with status interrupted', { tag: '@RUN-CANCEL' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const run = await longRun(agent, time, thread, { topic: 'cancelled' });
  expectStatus(await agent.post(`/threads/${thread}/runs/${run.run_id}/cancel?wait=1&action=interrupt`), '2xx');
  await expectEnded(agent, time, thread, run.run_id, 'the cancel was accepted');
  expect((await readRun(agent, thread, run.run_id)).status, 'the cancelled run').toBe('interrupted');
});

test('cancel with action rollback deletes the run in progress: a later lookup answers 4xx', { tag: '@RUN-CANCEL' }, async ({ agent, time }) => {
  const thread = await newThread(agent);
  const run = await longRun(agent, time, thread, { topic: 'rolled back' });
  // Found before, so that not found after says it was deleted, not that lookups fail.
  precondition(await agent.get(`/threads/${thread}/runs/${run.run_id}`), 'look up the run before its cancel');
  expectStatus(await agent.post(`/threads/${thread}/runs/${run.run_id}/cancel?wait=1&action=rollback`), '2xx');
  const read = await onceShown(
    time,
    () => agent.get(`/threads/${thread}/runs/${run.run_id}`),
    (res) => res.status >= 400,
  );
  expect(read.status >= 400 && read.status < 500, read.describe('the rolled-back run is no longer found (4xx)')).toBe(true);
});
