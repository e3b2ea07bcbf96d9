// The project's own tests: units beside the code (*.test.ts), the contract's validity,
// and self-tests that run the suites against the simulator and deliberately broken targets.
// The machine's two cores are the limit: every project that can runs in one phase, the longest
// first, so that the short tests fill in beside them and no core waits for a phase to end. The runs
// against real-time targets wait on their clocks more than they compute: they start first, and a
// fourth worker keeps both cores busy beside them. The broken-target and variant lanes need the
// clean run (clean-run.ts), which the first of them to start makes while the others wait; only the
// scores and the interop matrix, which read what other projects wrote, run after them.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { defineConfig } from '@playwright/test';
import { INVOCATION_VARIABLE } from './tests/self-test/run-cli.ts';

// On Node 20, this runner's workers and the Node processes their tests start (npm, tsc, the open-source
// server) read node_modules' compiled code from V8's code cache, as the CLI's processes do (bin/v8-code-cache.cjs).
createRequire(import.meta.url)('./bin/v8-code-cache.cjs').enable();

// One clean run per `playwright test`: its workers, which load this file again, inherit the name.
process.env[INVOCATION_VARIABLE] ??= randomUUID();

const BROKEN_TARGETS = '**/self-test/broken-targets.test.ts';
const CLEAN_RUN = '**/self-test/clean-run.setup.ts';
const MUTATION_SCORE = '**/self-test/mutation-score.test.ts';
const CONFORMANT_VARIANTS = '**/self-test/conformant-variants.test.ts';
/**
 * The runs the matrix test reads: full runs against targets that are not the embedded simulator, and the
 * embedded simulator's two, made beside them so that the last phase holds only the matrix.
 */
const REAL_TARGETS = ['**/tests/real-target/real-target.test.ts', '**/tests/real-server/real-server.test.ts', '**/tests/matrix/embedded-runs.test.ts'];
const MATRIX = '**/tests/matrix/interop-matrix.test.ts';
/** The project's tests that take a minute or more on a busy machine: started before the short ones. */
const SLOW = [
  '**/tests/typecheck.test.ts',
  '**/tests/chaos/*.test.ts',
  '**/tests/self-test/simulator.test.ts',
  '**/tests/package/packed.test.ts',
  '**/tests/simulator/run-against-simulate.test.ts',
  '**/cli/main.test.ts',
  '**/tests/fuzz/fuzz.test.ts',
];
/**
 * Tests of five to fifteen seconds (a run or a server of their own): dealt after the lanes and before the
 * project's short tests, which then fill the end of the run instead of these holding one core busy alone.
 */
const MEDIUM = [
  '**/cli/gating.test.ts',
  '**/cli/matrix.test.ts',
  '**/cli/reproduce.test.ts',
  '**/simulator/deployment-config.test.ts',
  '**/simulator/start-simulator.test.ts',
  '**/tests/clients/retries.test.ts',
  '**/tests/concurrency/reject.test.ts',
  '**/tests/rate-limits/batches.test.ts',
  '**/tests/real-server/reject-race.test.ts',
  '**/tests/simulator/parent-ends.test.ts',
];
/** The catalogue, the tags, the third hop and the mutations' breaks lists, checked without a run. */
const RULE_CHECKS = [
  '**/specs/contract.test.ts',
  '**/specs/sections.test.ts',
  '**/tests/coverage.test.ts',
  '**/tests/three-hops.test.ts',
  '**/self-test/mutation-coverage.test.ts',
  '**/self-test/mutation-breaks.test.ts',
];

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  testIgnore: ['**/node_modules/**', 'conformance-report/**'],
  // Wide: the slowest project tests run the suites in child processes, which a machine busy with
  // other work can slow several times over; a time limit must never be what fails them.
  timeout: 300_000,
  workers: 4,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list'], ['junit', { outputFile: 'test-results/junit.xml' }]] : [['list']],
  projects: [
    // Projects start in this order.
    { name: 'rules', testMatch: RULE_CHECKS },
    { name: 'clean-run', testMatch: CLEAN_RUN },
    { name: 'real-targets', testMatch: REAL_TARGETS },
    { name: 'slow', testMatch: SLOW },
    { name: 'conformant-variants', testMatch: CONFORMANT_VARIANTS },
    { name: 'broken-targets', testMatch: BROKEN_TARGETS },
    { name: 'medium', testMatch: MEDIUM },
    {
      name: 'project',
      testIgnore: [
        '**/node_modules/**',
        'conformance-report/**',
        CLEAN_RUN,
        BROKEN_TARGETS,
        CONFORMANT_VARIANTS,
        MUTATION_SCORE,
        ...RULE_CHECKS,
        ...REAL_TARGETS,
        MATRIX,
        ...SLOW,
        ...MEDIUM,
      ],
    },
    { name: 'mutation-score', testMatch: MUTATION_SCORE, dependencies: ['broken-targets', 'conformant-variants'] },
    // The interop matrix of the embedded simulator and the two real targets, from their reports.
    { name: 'matrix', testMatch: MATRIX, dependencies: ['real-targets'] },
  ],
});
