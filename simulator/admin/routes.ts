// The reserved admin path /__sim/…: powers a real service does not have (virtual clock,
// reset, seeded ids, rate-limit counters). The suites find them here and skip tests that
// need them elsewhere.
import { controlPlaneAdminRoutes } from '../control-plane/admin-routes.ts';
import { unprocessable } from '../http/errors.ts';
import { route, type Route } from '../http/router.ts';
import { platformAdminRoutes } from '../platform-api/admin-routes.ts';
import type { Simulator } from '../simulator.ts';

export const ADMIN_PREFIX = '/__sim';

export function adminRoutes(sim: Simulator): Route[] {
  return [
    route('GET', `${ADMIN_PREFIX}/info`, undefined, () => ({ body: sim.info() })),
    route('GET', `${ADMIN_PREFIX}/clock`, undefined, () => ({ body: { now: sim.clock.iso() } })),
    route('POST', `${ADMIN_PREFIX}/clock/advance`, undefined, (req) => {
      const body = (req.body ?? {}) as { ms?: unknown; seconds?: unknown };
      const ms = typeof body.ms === 'number' ? body.ms : typeof body.seconds === 'number' ? body.seconds * 1000 : NaN;
      if (!Number.isFinite(ms) || ms < 0) {
        throw unprocessable('clock/advance needs {"ms": <non-negative number>} or {"seconds": <non-negative number>}');
      }
      sim.advance(ms);
      return { body: { now: sim.clock.iso() } };
    }),
    route('POST', `${ADMIN_PREFIX}/reset`, undefined, (req) => {
      const body = (req.body ?? {}) as { seed?: unknown };
      if (body.seed !== undefined && typeof body.seed !== 'string' && typeof body.seed !== 'number') {
        throw unprocessable('reset takes an optional {"seed": <string or number>}');
      }
      sim.reset(body.seed === undefined ? undefined : String(body.seed));
      return { body: sim.info() };
    }),
    // Empties the §8 rate-limit counters of every plane; time and data stay as they are.
    route('POST', `${ADMIN_PREFIX}/rate-limits/reset`, undefined, () => {
      sim.resetRateLimits();
      return { body: { reset: true, now: sim.clock.iso() } };
    }),
    ...controlPlaneAdminRoutes(ADMIN_PREFIX, sim.controlPlane),
    ...platformAdminRoutes([sim.platform.us, sim.platform.eu]),
  ];
}
