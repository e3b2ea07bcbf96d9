// Model-based: any sequence of thread creations, copies and runs leaves every thread with
// exactly its own runs' data and the status its last run gives it, and search agrees.
import fc from 'fast-check';
import { test } from '../../../harness/fixtures.ts';
import { assertProperty } from '../../../harness/property.ts';
import { commands } from './commands.ts';
import type { Model, Real } from './model.ts';

test('threads and runs behave as the model of §3 for any sequence of operations', {
  tag: ['@THREAD-COPY-INDEPENDENT', '@THREAD-STATUS-AFTER-RUN', '@THREAD-SEARCH-STATUS'],
}, async ({ agent, scope }) => {
  let round = 0;
  await assertProperty(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 12 }), async (cmds) => {
      const setup = () => ({ model: { threads: [], scope: `${scope}-${round++}` } as Model, real: { agent } as Real });
      await fc.asyncModelRun(setup, cmds);
    }),
    { numRuns: 15 },
  );
});
