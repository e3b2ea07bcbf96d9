// Issue 13, concurrency, on the open-source agent server (@langchain/langgraph-api, started as
// real-server.test.ts does): the same race as tests/concurrency/reject.test.ts, 50 run creations
// with `reject` at once on one idle thread, then 50 more while the winner runs (the graph's
// delay_ms keeps it in progress). What the spec documents is asserted; where the server is known
// to differ (expectations/langgraph-api-js.yaml), that test is marked as an expected failure.
import { expect, test } from '@playwright/test';
import { rejectRace, statusCounts, WAVE, type RaceOutcome } from '../concurrency/reject-race.ts';
import { startRealServer, type RealServer } from './start.ts';

test.describe.configure({ mode: 'serial' });

let server: RealServer | undefined;
let race: RaceOutcome;

test.beforeAll(async () => {
  // Starting the open-source server takes seconds alone and minutes on a busy machine: the limit catches a hang.
  test.setTimeout(10 * 60_000);
  server = await startRealServer();
  race = await rejectRace(server.url, { topic: 'race', delay_ms: 5_000 });
  test.info().annotations.push({
    type: 'observed',
    description: `idle thread: ${JSON.stringify(statusCounts(race.first))}; busy thread: ${JSON.stringify(statusCounts(race.second))}`,
  });
});

test.afterAll(async () => {
  await server?.close();
});

test(`${WAVE} parallel creations with reject on one idle thread: exactly one accepted and run to success, the only run`, async () => {
  const refusedOf = (answers: RaceOutcome['first']) => answers.filter((a) => a.status >= 400 && a.status < 500).length;
  expect(
    race.first.filter((a) => a.status === 200),
    'accepted of the wave sent to the idle thread',
  ).toHaveLength(1);
  expect(refusedOf(race.first), 'refused with a 4xx of that wave').toBe(WAVE - 1);
  expect(refusedOf(race.second), 'refused with a 4xx of the wave sent while the winner runs').toBe(WAVE);
  const refusals = new Set([...race.first, ...race.second].filter((a) => a.status !== 200).map((a) => a.status));
  expect(refusals.size, 'every refusal answers one status (whether it is 409 is the next test)').toBe(1);
  expect(race.finals, 'the accepted run goes on to success').toEqual(['success']);
  expect(race.listed, "the thread's only run is the accepted one").toEqual(race.accepted);
});

test('the refusals answer 409, as documented', async () => {
  test.fail(true, 'expectations/langgraph-api-js.yaml MULTITASK-REJECT-409: reject while a run is in progress answers 422, not 409');
  expect(statusCounts(race.first)).toEqual({ 200: 1, 409: WAVE - 1 });
  expect(statusCounts(race.second)).toEqual({ 409: WAVE });
});
