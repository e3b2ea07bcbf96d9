// The platform API's own fixtures: fresh trace-run ids for each test, named by its scope and the
// conformance run's key.
import { test as base } from '../../harness/fixtures.ts';
import { TraceRunIds } from './traces-steps.ts';

export { expect } from '../../harness/fixtures.ts';

export const test = base.extend<{ traceRunIds: TraceRunIds }>({
  traceRunIds: async ({ scope, conformanceRun }, use) => {
    await use(new TraceRunIds(scope, conformanceRun));
  },
});
