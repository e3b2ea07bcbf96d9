// Admin powers over the control plane (under /__sim): ask for a revision to fail, so a test
// can follow the failure path that a real service shows only when a build breaks.
import { unprocessable } from '../http/errors.ts';
import { route, type Route } from '../http/router.ts';
import type { ControlPlane } from './control-plane.ts';
import { FAILURES, type Failure } from './revision-lifecycle.ts';

export function controlPlaneAdminRoutes(prefix: string, controlPlane: ControlPlane): Route[] {
  return [
    route('POST', `${prefix}/deployments/{deployment_id}/revisions/{revision_id}/fail`, undefined, (req) => {
      const status = ((req.body ?? {}) as { status?: unknown }).status ?? 'BUILD_FAILED';
      if (!(FAILURES as readonly unknown[]).includes(status)) {
        throw unprocessable(`revisions/{revision_id}/fail takes {"status": one of ${FAILURES.join(', ')}}`);
      }
      return { body: controlPlane.deployments.fail(req.params.deployment_id, req.params.revision_id, status as Failure) };
    }),
  ];
}
