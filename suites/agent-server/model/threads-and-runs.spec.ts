// Model-based: after any sequence of thread creations, copies and runs, every thread holds the
// state its own last operation left (no other thread's changes it), has the status its last run
// gives it, and a status search answers the threads the search reports with that status. Each
// rule is a property of its own (commandsFor): a failed check ends its property, never another's.
import fc from 'fast-check';
import type { ApiClient } from '../../../harness/client.ts';
import { test } from '../../../harness/fixtures.ts';
import { assertProperty } from '../../../harness/property.ts';
import type { Time } from '../../../harness/time.ts';
import { commandsFor, type ModelRule } from './commands.ts';
import type { Model, Real } from './model.ts';

async function modelHolds(rule: ModelRule, agent: ApiClient, time: Time, testKey: string): Promise<void> {
  let round = 0;
  await assertProperty(
    fc.asyncProperty(fc.commands(commandsFor(rule), { maxCommands: 12 }), async (cmds) => {
      const setup = () => ({ model: { threads: [], testKey: `${testKey}-${round++}` } as Model, real: { agent, time } as Real });
      await fc.asyncModelRun(setup, cmds);
    }),
    { numRuns: 15 },
  );
}

test('a copy and its original stay independent through any sequence of creations, copies and runs', { tag: '@THREAD-COPY-INDEPENDENT' }, async ({
  agent,
  time,
  testKey,
}) => {
  await modelHolds('THREAD-COPY-INDEPENDENT', agent, time, testKey);
});

test('after any sequence of creations, copies and runs, a thread has the status its last run gives it', { tag: '@THREAD-STATUS-AFTER-RUN' }, async ({
  agent,
  time,
  testKey,
}) => {
  await modelHolds('THREAD-STATUS-AFTER-RUN', agent, time, testKey);
});

test('after any sequence of creations, copies and runs, a status search answers the threads with that status', { tag: '@THREAD-SEARCH-STATUS' }, async ({
  agent,
  time,
  testKey,
}) => {
  await modelHolds('THREAD-SEARCH-STATUS', agent, time, testKey);
});
