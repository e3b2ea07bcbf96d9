// Admin capabilities over the platform API (under /__sim): the page an OAuth flow's `url` points
// to. Visiting it stands for the user granting access at the provider, so the next
// authenticate call answers the token.
import type { operations } from '../../specs/types/simulator-admin.ts';
import { notFound } from '../http/errors.ts';
import type { RouteTable } from '../http/router.ts';
import type { PlatformApi } from './platform-api.ts';

export function authorizeOAuthFlow(regions: PlatformApi[]): RouteTable<operations>['authorizeOAuthFlow'] {
  return (req) => {
    const authId = req.query.get('auth_id') ?? '';
    const region = regions.find((r) => r.oauth.has(authId));
    if (!region) throw notFound(`No OAuth flow ${authId} in any region`);
    return { body: { ...region.oauth.complete(authId), region: region.region } };
  };
}
