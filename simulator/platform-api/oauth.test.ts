import { expect, test } from '@playwright/test';
import { refusalOf } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import { OAuthFlows } from './oauth.ts';

const flows = () => new OAuthFlows({ ids: new IdGenerator('oauth') });
const body = { provider: 'github', scopes: ['repo'], user_id: 'u1' };

test('a first call starts a flow; once completed, the same call answers the token', () => {
  const oauth = flows();
  const started = oauth.authenticate('w', body, 'http://sim');
  expect(started).toMatchObject({ status: 'pending', token: null });
  expect(started.url).toBe(`http://sim/__sim/oauth/authorize?auth_id=${started.auth_id}&provider=github`);
  expect(oauth.authenticate('w', { ...body, scopes: ['repo', 'repo'] }, 'http://sim').auth_id).toBe(started.auth_id);
  oauth.complete(started.auth_id!);
  const done = oauth.authenticate('w', body, 'http://sim');
  expect(done).toMatchObject({ status: 'completed', url: null, auth_id: started.auth_id });
  expect(done.token).toMatch(/^apcsim-oauth-/);
});

test('force_new starts a new flow; other users and workspaces have flows of their own', () => {
  const oauth = flows();
  const first = oauth.authenticate('w', body, 'http://sim');
  oauth.complete(first.auth_id!);
  const forced = oauth.authenticate('w', { ...body, force_new: true }, 'http://sim');
  expect(forced.status).toBe('pending');
  expect(forced.auth_id).not.toBe(first.auth_id);
  expect(oauth.authenticate('w', { ...body, user_id: 'u2' }, 'http://sim').status).toBe('pending');
  expect(oauth.authenticate('other', body, 'http://sim').auth_id).not.toBe(forced.auth_id);
});

test('provider and scopes are required', () => {
  expect(refusalOf(() => flows().authenticate('w', { user_id: 'u' }, 'http://sim'))?.issues?.map((i) => i.loc)).toEqual([
    ['body', 'provider'],
    ['body', 'scopes'],
  ]);
  expect(refusalOf(() => flows().authenticate('w', { scopes: [] }, 'http://sim'))?.status).toBe(422);
});
