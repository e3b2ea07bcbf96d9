// Admin capabilities over the control plane (under /__sim): ask for a revision to fail, so a test
// can follow the failure path that a real service shows only when a build breaks.
import type { operations } from '../../specs/types/simulator-admin.ts';
import type { RouteTable } from '../http/router.ts';
import type { ControlPlane } from './control-plane.ts';

export function failRevision(controlPlane: ControlPlane): RouteTable<operations>['failRevision'] {
  return (req) => ({ body: controlPlane.deployments.fail(req.params.deployment_id, req.params.revision_id, req.body?.status ?? 'BUILD_FAILED') });
}
