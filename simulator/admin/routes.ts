// The reserved admin path /__sim/…: capabilities a real service does not have (virtual clock,
// reset, seeded ids, rate-limit counters, faults), one handler per operation of
// specs/openapi/simulator-admin.yaml. The suites find them there and skip tests that need them
// elsewhere.
import type { operations } from '../../specs/types/simulator-admin.ts';
import { failRevision } from '../control-plane/admin-routes.ts';
import { unprocessable } from '../http/errors.ts';
import { compileTable, type Route } from '../http/router.ts';
import { authorizeOAuthFlow } from '../platform-api/admin-routes.ts';
import type { Endpoint } from '../../specs/contract.ts';
import type { Simulator } from '../simulator.ts';

/** The admin routes as one plane (`endpoint`) serves them: sendRequests makes its requests there. */
export function adminRoutes(sim: Simulator, endpoint: Endpoint): Route[] {
  return compileTable<operations>('simulator-admin', {
    getSimulatorInfo: () => ({ body: sim.info() }),
    getClock: () => ({ body: { now: sim.clock.iso() } }),
    advanceClock: (req) => {
      sim.advance(req.body.ms ?? (req.body.seconds ?? 0) * 1000);
      return { body: { now: sim.clock.iso() } };
    },
    resetSimulator: (req) => {
      const seed = req.body?.seed;
      sim.reset(seed === undefined ? undefined : String(seed), req.body?.time_scale);
      return { body: sim.info() };
    },
    // Empties the §8 rate-limit counters of every plane; time and data stay as they are.
    resetRateLimits: () => {
      sim.resetRateLimits();
      return { body: { reset: true, now: sim.clock.iso() } };
    },
    sendRequests: async (req) => ({ body: { answers: await sim.answerBatch(endpoint, req.body, { ip: req.ip }) } }),
    getWebhookActivity: () => ({ body: { under_way: sim.webhooksUnderWay() } }),
    listFaults: () => ({ body: { faults: sim.faults.list() } }),
    setFault: (req) => {
      const problem = sim.faults.add(req.body);
      if (problem) throw unprocessable(`Invalid fault: ${problem}`, [{ loc: ['body'], msg: problem, type: 'value_error' }]);
      return { body: { faults: sim.faults.list() } };
    },
    clearFaults: () => {
      sim.faults.clear();
      return { body: { faults: [] } };
    },
    getSnapshot: () => ({ body: sim.snapshot() }),
    restoreSnapshot: async (req) => {
      await sim.restore(req.body);
      return { body: sim.info() };
    },
    failRevision: failRevision(sim.controlPlane),
    authorizeOAuthFlow: authorizeOAuthFlow([sim.platform.us, sim.platform.eu]),
  });
}
