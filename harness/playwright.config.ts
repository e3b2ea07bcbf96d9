// The conformance run: suites per plane (a Playwright project each) against the target
// that global setup resolves, with the conformance reporter writing the report.
import { defineConfig } from '@playwright/test';
import { extname, resolve } from 'node:path';

// TypeScript in the clone, JavaScript in the installed package (dist/, npm run build): the files
// this config names have its own extension.
const EXT = extname(import.meta.filename);
const outDir = resolve(process.env.APC_OUT ?? 'conformance-report');

export default defineConfig({
  testDir: '../suites',
  testMatch: `**/*.spec${EXT}`,
  // The self-tests' clean run leaves out the rate-limit suites (APC_TEST_IGNORE, a file pattern).
  testIgnore: process.env.APC_TEST_IGNORE ? new RegExp(process.env.APC_TEST_IGNORE) : undefined,
  globalSetup: resolve(import.meta.dirname, `global-setup${EXT}`),
  // Playwright's per-test output folders: `run` puts them in a temporary folder it removes afterwards
  // (APC_TEST_RESULTS), or in the report folder with --keep-test-results.
  outputDir: process.env.APC_TEST_RESULTS || resolve(outDir, 'test-results'),
  // One worker keeps a shared target's ids and clock in a fixed order: same seed, same report.
  // `run --workers` (APC_WORKERS) runs files in parallel where that order does not matter (a real target).
  workers: Number(process.env.APC_WORKERS) || 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  forbidOnly: true,
  // The progress reporter shows progress only (`run --quiet` and CI: dots), never a tally of tests beside the
  // conformance reporter's verdicts. The redacting reporter comes first: it takes secrets out of each result
  // before the others see it.
  reporter: [
    [resolve(import.meta.dirname, `../reports/redacting-reporter${EXT}`)],
    [
      resolve(import.meta.dirname, `../reports/progress${EXT}`),
      { style: process.env.CI || process.env.APC_QUIET ? 'dots' : 'line', expectations: process.env.APC_EXPECTATIONS || undefined },
    ],
    [resolve(import.meta.dirname, `../reports/reporter${EXT}`), { outputDir: outDir }],
  ],
  projects: [
    { name: 'agent-server', testMatch: `agent-server/**/*.spec${EXT}` },
    { name: 'control-plane', testMatch: `control-plane/**/*.spec${EXT}` },
    { name: 'platform-api', testMatch: `platform-api/**/*.spec${EXT}` },
  ],
});
