// Issue 13, concurrency: 50 run creations with multitask_strategy `reject` sent at once to one
// idle thread. Exactly one is accepted and 49 get 409; while that run is in progress, 50 more all
// get 409; the winner runs to success and is the thread's only run (spec §4.5 multitask table).
// The simulator runs on the real clock, so the winner keeps the thread busy by itself.
import { expect, test } from '@playwright/test';
import { Simulator } from '../../simulator/simulator.ts';
import { rejectRace, statusCounts, WAVE } from './reject-race.ts';

let sim: Simulator | undefined;
test.afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

test(`${WAVE} parallel creations with reject on one idle thread: exactly one accepted, the rest 409, one run kept`, async () => {
  // Long enough for both waves to arrive while the winner runs, on a slow shared machine too.
  sim = await Simulator.start({ seed: 'reject-race', clock: 'real', runDurationMs: 5_000, quiet: true });
  const race = await rejectRace(sim.urls['agent-server']!, { topic: 'race' });

  expect(statusCounts(race.first), 'the wave sent to the idle thread').toEqual({ 200: 1, 409: WAVE - 1 });
  expect(statusCounts(race.second), 'the wave sent while the winner runs').toEqual({ 409: WAVE });
  for (const refused of [...race.first, ...race.second].filter((a) => a.status === 409)) {
    expect(refused.body, 'a refusal in the documented error shape').toEqual({ detail: expect.stringContaining('already running') });
  }
  expect(race.accepted).toHaveLength(1);
  expect(race.finals, 'the accepted run goes on to success').toEqual(['success']);
  expect(race.listed, "the thread's only run is the accepted one").toEqual(race.accepted);
});
