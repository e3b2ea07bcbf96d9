// The project's own tests: units beside the code (*.test.ts), the contract's validity,
// and self-tests that run the suites against the simulator and deliberately broken targets.
// The broken targets need the clean run first: it tells each mutation which files it reaches.
// The rules' static checks (`npm run check:rules`, seconds) come before the clean run, so a rule, tag,
// mutation or exception list left out stops the long self-tests before they start.
import { defineConfig } from '@playwright/test';

const BROKEN_TARGETS = '**/self-test/broken-targets.test.ts';
const CLEAN_RUN = '**/self-test/clean-run.setup.ts';
const MUTATION_SCORE = '**/self-test/mutation-score.test.ts';
const CONFORMANT_VARIANTS = '**/self-test/conformant-variants.test.ts';
/** Full runs against targets that are not the embedded simulator: the matrix test reads their report folders. */
const REAL_TARGETS = ['**/tests/real-target/real-target.test.ts', '**/tests/real-server/real-server.test.ts'];
const MATRIX = '**/tests/matrix/**/*.test.ts';
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
  workers: 3,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list'], ['junit', { outputFile: 'test-results/junit.xml' }]] : [['list']],
  projects: [
    { name: 'rules', testMatch: RULE_CHECKS },
    { name: 'clean-run', testMatch: CLEAN_RUN, dependencies: ['rules'] },
    { name: 'broken-targets', testMatch: BROKEN_TARGETS, dependencies: ['clean-run'] },
    { name: 'conformant-variants', testMatch: CONFORMANT_VARIANTS, dependencies: ['clean-run'] },
    { name: 'mutation-score', testMatch: MUTATION_SCORE, dependencies: ['broken-targets', 'conformant-variants'] },
    { name: 'real-targets', testMatch: REAL_TARGETS },
    // The interop matrix of the embedded simulator and the two real targets, from their reports.
    { name: 'matrix', testMatch: MATRIX, dependencies: ['real-targets'] },
    {
      name: 'project',
      testIgnore: ['**/node_modules/**', 'conformance-report/**', BROKEN_TARGETS, CONFORMANT_VARIANTS, MUTATION_SCORE, ...RULE_CHECKS, ...REAL_TARGETS, MATRIX],
    },
  ],
});
