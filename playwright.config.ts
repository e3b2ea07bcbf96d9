// The project's own tests: units beside the code (*.test.ts), the contract's validity,
// and self-tests that run the suites against the simulator and deliberately broken targets.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  testIgnore: ['**/node_modules/**', 'conformance-report/**'],
  timeout: 120_000,
  workers: 2,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list'], ['junit', { outputFile: 'test-results/junit.xml' }]] : [['list']],
});
