// Where the interop matrix's two runs of the embedded simulator go (embedded-runs.test.ts makes them,
// interop-matrix.test.ts reads them), and what the earlier one breaks.
import { join } from 'node:path';
import { ROOT } from '../self-test/run-cli.ts';

export const RESULTS = join(ROOT, 'test-results');
/** The site, kept for CI's artifacts with the two embedded runs' reports inside it (the "full report" links work). */
export const OUT = join(RESULTS, 'matrix-site');
export const EARLIER = join(OUT, 'embedded-earlier');
export const NOW = join(OUT, 'embedded-now');
/** The name `run` gives the embedded simulator (harness/target.ts): the broken target's config takes it too. */
export const EMBEDDED = 'embedded simulator';
/** GET /threads/{id} of an unknown thread answers 400: one rule of the threads area fails, nothing else the area tests. */
export const MUTATION = 'unknown-thread-400';
/**
 * The earlier run is the threads area only (59 of the agent-server plane's 236 tests), enough for the
 * broken rule and its neighbours; the clean run is the whole agent-server plane (26 s on one worker),
 * so that every agent-server rule is in scope on all three targets.
 */
export const EARLIER_GREP = '@THREAD-';
