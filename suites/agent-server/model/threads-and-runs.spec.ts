// Model-based: after any sequence of thread creations, copies and runs, every thread holds the
// state its own last operation left (no other thread's changes it), has the status its last run
// gives it, and a status search answers the threads the search reports with that status.
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
