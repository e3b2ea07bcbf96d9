// The conformance run: suites per plane (a Playwright project each) against the target
// that global setup resolves, with the conformance reporter writing the report. The run's plan
// comes from the CLI; this config hands it on, typed: to global setup and the fixtures as its
// metadata (planOf), to the reporters as their options.
import { defineConfig } from '@playwright/test';
import { extname, resolve } from 'node:path';
import { outliveClosedOutput } from './closed-output.ts';
import { handedPlan } from './conformance-options.ts';

// TypeScript in the clone, JavaScript in the installed package (dist/, npm run build): the files
// this config names have its own extension.
const EXT = extname(import.meta.filename);
const plan = handedPlan();
// The progress goes to the output of `run`, which its reader may close (`run … | head`): the
// suites go on to their report and verdict.
outliveClosedOutput();

export default defineConfig({
  testDir: '../suites',
  testMatch: `**/*.spec${EXT}`,
  // The self-tests' clean run leaves out the rate-limit suites (a file pattern).
  testIgnore: plan.options.ignoreFiles ? new RegExp(plan.options.ignoreFiles) : undefined,
  globalSetup: resolve(import.meta.dirname, `global-setup${EXT}`),
  metadata: { plan },
  // Playwright's per-test output folders: a temporary folder `run` removes afterwards, or the
  // report folder with --keep-test-results.
  outputDir: plan.testResults,
  // One worker keeps a shared target's ids and clock in a fixed order: same seed, same report.
  // `run --workers` runs files in parallel where that order does not matter (a real target).
  workers: plan.workers,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  forbidOnly: true,
  // The progress reporter shows progress only (`run --quiet` and CI: dots), never a tally of tests beside the
  // conformance reporter's verdicts. A test's words reach them redacted already (its evidence fixture).
  reporter: [
    [resolve(import.meta.dirname, `../reports/progress${EXT}`), { style: plan.progress, expectations: plan.options.expectations }],
    [resolve(import.meta.dirname, `../reports/reporter${EXT}`), { plan }],
  ],
  projects: [
    { name: 'agent-server', testMatch: `agent-server/**/*.spec${EXT}` },
    { name: 'control-plane', testMatch: `control-plane/**/*.spec${EXT}` },
    { name: 'platform-api', testMatch: `platform-api/**/*.spec${EXT}` },
  ],
});
