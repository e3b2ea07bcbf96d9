// The platform API's own fixtures: fresh trace-run ids for each test, named by its test key and the
// conformance run's key.
import { test as base } from '../../harness/fixtures.ts';
import { TraceRunIds } from './traces-steps.ts';

export { expect } from '../../harness/fixtures.ts';

export const test = base.extend<{ traceRunIds: TraceRunIds }>({
  traceRunIds: async ({ testKey, conformanceRun }, use) => {
    await use(new TraceRunIds(testKey, conformanceRun));
  },
});
