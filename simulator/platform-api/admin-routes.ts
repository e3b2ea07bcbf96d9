// Admin powers over the platform API (under /__sim): the page an OAuth flow's `url` points
// to. Visiting it stands for the user granting access at the provider, so the next
// authenticate call answers the token.
import { notFound, unprocessable } from '../http/errors.ts';
import { route, type Route } from '../http/router.ts';
import { AUTHORIZE_PATH } from './oauth.ts';
import type { PlatformApi } from './platform-api.ts';

export function platformAdminRoutes(regions: PlatformApi[]): Route[] {
  return [
    route('GET', AUTHORIZE_PATH, undefined, (req) => {
      const authId = req.query.get('auth_id');
      if (!authId) throw unprocessable(`${AUTHORIZE_PATH} needs ?auth_id=<the auth_id of the flow>`);
      const region = regions.find((r) => r.oauth.has(authId));
      if (!region) throw notFound(`No OAuth flow ${authId} in any region`);
      return { body: { ...region.oauth.complete(authId), region: region.region } };
    }),
  ];
}
