// §2.4, §4.2: POST /v2/auth/authenticate returns an OAuth token, or starts a flow to get one.
import fc from 'fast-check';
import { expectSchema, expectStatus, rulesOfStep } from '../../harness/checks/index.ts';
import { forRule, skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { clientWithKey, requireCapability } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { assertProperty } from '../../harness/property.ts';
import type { AuthenticateResponse as Result } from '../../specs/types/platform-api.ts';
import { AUTHENTICATE, authenticate, OAuthProviders, withEveryField } from './authenticate-steps.ts';

/** A request for this test's own user, so flows of different tests never meet, naming the run's provider. */
const request = (oauth: OAuthProviders, testKey: string, extra: Record<string, unknown> = {}) => ({
  provider: oauth.first,
  scopes: ['read', 'write'],
  user_id: `apc-user-${testKey}`,
  ...extra,
});

/**
 * A body sent as it is: a test of what the target refuses. A refusal other than 422 of a body naming a
 * provider this run made up may only say the provider is unknown, and skips the test (OAuthProviders).
 */
async function sendAsIs(platform: ApiClient, body: unknown, oauth: OAuthProviders): Promise<ApiResponse<Result>> {
  const res = await platform.post<Result>(AUTHENTICATE, body);
  if (res.status !== 422 && typeof body === 'object' && body !== null) oauth.skipIfRefusedMadeUp(res, (body as Record<string, unknown>).provider);
  return res;
}

/** A value present in an answer: null counts as absent. */
const present = (value: unknown) => value !== undefined && value !== null;

/**
 * Starts a flow for `user`, completes it at its URL and asks again: answers the first call and the
 * token. Completing a flow is what AUTHN-FLOW-COMPLETES states: a test of that rule (`judged`)
 * fails on a step that goes wrong, any other test takes it as a failed precondition that rule explains.
 */
async function completedFlow(
  platform: ApiClient,
  oauth: OAuthProviders,
  user: string,
  judged: boolean,
): Promise<{ first: ApiResponse<Result>; done: ApiResponse<Result> }> {
  const step = (ok: boolean, what: string) => {
    if (judged) expect(ok, what).toBe(true);
    else if (!ok) skipForPrecondition(`precondition failed: ${what}`, ['AUTHN-FLOW-COMPLETES']);
  };
  const first = await authenticate(platform, request(oauth, user), oauth);
  step(first.status === 200 && typeof first.json.url === 'string', first.describe('a first call starts a flow at a url'));
  const visited = await platform.follow(first.json.url!);
  step(visited.status === 200, `completing the flow at ${first.json.url} answers 200, not ${visited.status}`);
  const done = await authenticate(platform, request(oauth, user), oauth);
  step(done.status === 200 && present(done.json.token), done.describe('once the flow is completed, the same call answers the token'));
  return { first, done };
}

test('a valid authenticate request answers 200 with a token or a started flow', { tag: '@AUTHN-ENDPOINT' }, async ({ platform, testKey, conformanceRun }) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  const res = await authenticate(platform, request(oauth, testKey), oauth);
  expectStatus(res, 200);
  expectSchema(res, 'platform-api', 'AuthenticateResponse');
  expect(present(res.json.token) || present(res.json.url), res.describe('a token, or the url that starts the flow')).toBe(true);
});

// The provider is an id the target knows (the run's, OAuthProviders): its value here only names its type.
const FIELDS: [string, string, unknown][] = [
  ['AUTHN-REQ-PROVIDER', 'provider', 'the run provider'],
  ['AUTHN-REQ-SCOPES', 'scopes', ['repo', 'read:user']],
  ['AUTHN-REQ-USER-ID', 'user_id', 'user-42'],
  ['AUTHN-REQ-LS-USER-ID', 'ls_user_id', 'ls-user-42'],
  ['AUTHN-REQ-AGENT-ID', 'agent_id', 'agent-7'],
  ['AUTHN-REQ-USE-AGENT-BUILDER-PUBLIC-OAUTH', 'use_agent_builder_public_oauth', false],
  ['AUTHN-REQ-FORCE-NEW', 'force_new', false],
  ['AUTHN-REQ-TOKEN-ID', 'token_id', '3f0b6a52-8d4c-4b7e-9a1f-2c3d4e5f6a7b'],
  ['AUTHN-REQ-IS-DEFAULT', 'is_default', true],
];
for (const [rule, field, value] of FIELDS) {
  test(`the body accepts ${field} as ${Array.isArray(value) ? 'an array of strings' : typeof value}`, { tag: `@${rule}` }, async ({
    platform,
    testKey,
    conformanceRun,
  }) => {
    const oauth = new OAuthProviders(conformanceRun.target);
    // A field the test's body does not carry: that body without it is a step. Answered otherwise than 200,
    // it is AUTHN-ENDPOINT's finding and says nothing of this field.
    if (!(field in request(oauth, testKey))) {
      const control = await authenticate(platform, request(oauth, testKey), oauth);
      if (control.status !== 200) skipForPrecondition(`precondition failed: the body without ${field} answers 200: ${control.describe()}`, ['AUTHN-ENDPOINT']);
    }
    const sample = field === 'provider' ? oauth.first : value;
    // A boolean field takes either value: "illustrated as false" shows one, it does not forbid the other.
    for (const sent of typeof sample === 'boolean' ? [sample, !sample] : [sample]) {
      const res = await authenticate(platform, { ...request(oauth, testKey), [field]: sent }, oauth);
      expectStatus(res, 200);
    }
  });
}

/**
 * 200 answers for one user: the first call, the same call again and one with force_new; where a
 * test can complete a flow (oauth-completion), the call once the flow is completed too.
 */
async function answersOf(platform: ApiClient, testKey: string, conformanceRun: ConformanceRun): Promise<ApiResponse<Result>[]> {
  const oauth = new OAuthProviders(conformanceRun.target);
  const answers = [
    await authenticate(platform, request(oauth, testKey), oauth),
    await authenticate(platform, request(oauth, testKey), oauth),
    await authenticate(platform, request(oauth, testKey, { force_new: true }), oauth),
  ];
  // The force_new answer's flow is the one the same call answers next.
  const pending = [...answers].reverse().find((res) => typeof res.json?.url === 'string');
  if (conformanceRun.target.capabilities.includes('oauth-completion') && pending && (await platform.follow(pending.json.url!)).status === 200) {
    answers.push(await authenticate(platform, request(oauth, testKey), oauth));
  }
  // The rules are about 200 answers: another status is AUTHN-ENDPOINT's (or force_new's) to judge.
  for (const res of answers) if (res.status !== 200) skipForPrecondition(`precondition failed: authenticate answers 200: ${res.describe()}`, rulesOfStep(res));
  return answers;
}

// §4.2 leaves open when url or token is returned, not whether auth_id is: every 200 answer carries it.
test('every 200 answer carries auth_id, a string', { tag: '@AUTHN-RESULT-AUTH-ID' }, async ({ platform, testKey, conformanceRun }) => {
  for (const res of await answersOf(platform, testKey, conformanceRun)) expect(typeof res.json.auth_id, res.describe('auth_id is a string')).toBe('string');
});

/** Null or absent: §4.2 leaves open when the field is returned, and the real service answers null (Agent Auth API reference, docs.langchain.com/api-reference/auth-service-v2/authenticate). */
const returned = (res: ApiResponse<Result>, field: 'url' | 'token') => present(res.json[field]);

// §4.2 leaves open when a url is returned: every answer that returns one is judged, one without breaks nothing.
test('a url, where an answer returns one, is a string', { tag: '@AUTHN-RESULT-URL' }, async ({ platform, testKey, conformanceRun }) => {
  const withUrl = (await answersOf(platform, testKey, conformanceRun)).filter((res) => returned(res, 'url'));
  for (const res of withUrl) expect(typeof res.json.url, res.describe('url is a string')).toBe('string');
});

test('a token, where an answer returns one, is a string', { tag: '@AUTHN-RESULT-TOKEN' }, async ({ platform, testKey, conformanceRun }) => {
  const withToken = (await answersOf(platform, testKey, conformanceRun)).filter((res) => returned(res, 'token'));
  // A new user's token comes once a flow is completed: by a person at the provider, or a target's oauth-completion.
  const completes = conformanceRun.target.capabilities.includes('oauth-completion');
  skipDeclared(
    !completes && withToken.length === 0,
    `no answer returned a token, and target '${conformanceRun.target.name}' declares no way to complete a flow (oauth-completion)`,
  );
  if (withToken.length === 0)
    skipForPrecondition('precondition failed: no answer returned a token, not even once the flow was completed', ['AUTHN-FLOW-COMPLETES']);
  for (const res of withToken) expect(typeof res.json.token, res.describe('token is a string')).toBe('string');
});

test('which request fields are required', { tag: '@AUTHN-REQUIRED-FIELDS' }, async ({ platform, testKey, observe, conformanceRun }) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  const answers: string[] = [];
  for (const field of ['provider', 'scopes', 'user_id']) {
    const { [field]: _dropped, ...body } = request(oauth, testKey) as Record<string, unknown>;
    answers.push(`without ${field} → ${(await platform.post(AUTHENTICATE, body)).status}`);
  }
  answers.push(`{} → ${(await platform.post(AUTHENTICATE, {})).status}`);
  observe('AUTHN-REQUIRED-FIELDS', answers.join('; '));
});

test('when the answer carries a url and when a token', { tag: '@AUTHN-RESULT-CONDITIONS' }, async ({ platform, testKey, observe, conformanceRun }) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  const describe = (res: ApiResponse<Result>) =>
    `${res.status} ${['status', 'url', 'auth_id', 'token'].filter((f) => present(res.json?.[f as keyof Result])).join('+') || 'nothing'}`;
  const first = await authenticate(platform, request(oauth, testKey), oauth);
  const again = await authenticate(platform, request(oauth, testKey), oauth);
  const forced = await authenticate(platform, request(oauth, testKey, { force_new: true }), oauth);
  observe('AUTHN-RESULT-CONDITIONS', `first call → ${describe(first)}; same call again → ${describe(again)}; force_new → ${describe(forced)}`);
});

test('a body without provider or without scopes answers 422 with a Validation error body', { tag: '@AUTHN-REQUIRED-PROVIDER-SCOPES' }, async ({
  platform,
  testKey,
  conformanceRun,
}) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  for (const field of ['provider', 'scopes']) {
    const { [field]: _dropped, ...body } = request(oauth, testKey) as Record<string, unknown>;
    const res = await sendAsIs(platform, body, oauth);
    expectStatus(res, 422);
    expectSchema(res, 'platform-api', 'HTTPValidationError');
  }
});

test('a 200 answer carries a token, or a url and an auth_id', { tag: '@AUTHN-TOKEN-OR-URL' }, async ({ platform, testKey, conformanceRun }) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  for (const body of [request(oauth, testKey), request(oauth, testKey), request(oauth, testKey, { force_new: true })]) {
    const res = await authenticate(platform, body, oauth);
    expectStatus(res, 200);
    const flow = present(res.json.url) && present(res.json.auth_id);
    expect(present(res.json.token) || flow, res.describe('a token, or a url with its auth_id')).toBe(true);
  }
});

// Values no validator of the documented type accepts, however lax: a coercing validator takes 7 for a
// string and 'yes', 1 or 'false' for a boolean, but never an object or an array for either. The bodies
// name the run's provider, so that the wrongly typed field is all a target could refuse.
const INVALID: [string, (provider: string) => unknown][] = [
  ['scopes not an array', (provider) => ({ provider, scopes: 'read' })],
  ['scopes holding an object', (provider) => ({ provider, scopes: ['read', { scope: 'write' }] })],
  ['provider not a string', (provider) => ({ provider: { name: provider }, scopes: [] })],
  ['token_id not a UUID', (provider) => ({ provider, scopes: [], token_id: 'token-1' })],
  ['force_new not a boolean', (provider) => ({ provider, scopes: [], force_new: { value: true } })],
  ['is_default not a boolean', (provider) => ({ provider, scopes: [], is_default: [true] })],
  ['use_agent_builder_public_oauth not a boolean', (provider) => ({ provider, scopes: [], use_agent_builder_public_oauth: { enabled: false } })],
  ['a JSON array', () => []],
];

test.describe('malformed JSON or a field of the wrong type answers 422 with a Validation error body', { tag: ['@AUTHN-BAD-INPUT', '@ERROR-422-AUTHN'] }, () => {
  for (const [name, body] of INVALID) {
    test(name, async ({ platform, conformanceRun }) => {
      const oauth = new OAuthProviders(conformanceRun.target);
      const res = await sendAsIs(platform, body(oauth.first), oauth);
      expectStatus(res, 422);
      expectSchema(res, 'platform-api', 'HTTPValidationError');
    });
  }
  test('malformed JSON', async ({ platform }) => {
    const res = await platform.post(AUTHENTICATE, undefined, { rawBody: '{"provider": "p", "scopes": [', headers: { 'content-type': 'application/json' } });
    // Unparseable JSON fails no field's validation (§7's 422): only the service's rule covers it.
    await forRule('AUTHN-BAD-INPUT', () => {
      expectStatus(res, 422);
      expectSchema(res, 'platform-api', 'HTTPValidationError');
    });
  });
});

/** An object: no string, boolean, uuid or array field takes one, however lax its validator. */
const anObject = fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string(), fc.boolean()));

/**
 * Arbitrary invalid bodies: a valid one with one field given a value of a JSON type no validator of
 * its documented type accepts, however lax (a coercing validator takes 7 for a string, 'yes' or 1
 * for a boolean): an object or an array for a string, boolean or uuid, for scopes an object or an
 * array holding an object or an array.
 */
const invalidBodies = fc.oneof(
  fc.tuple(
    fc.constantFrom('provider', 'user_id', 'ls_user_id', 'agent_id', 'use_agent_builder_public_oauth', 'force_new', 'token_id', 'is_default'),
    fc.oneof(anObject, fc.array(fc.oneof(fc.integer(), fc.string(), fc.boolean()))),
  ),
  fc.tuple(fc.constant('scopes'), fc.oneof(anObject, fc.array(fc.oneof(anObject, fc.array(fc.string())), { minLength: 1 }))),
);

test('for any body with a field of the wrong type, the answer is 422 with a Validation error body', { tag: ['@ERROR-422-AUTHN', '@AUTHN-BAD-INPUT'] }, async ({
  platform,
  conformanceRun,
}) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  await assertProperty(
    fc.asyncProperty(invalidBodies, async ([field, value]) => {
      const res = await sendAsIs(platform, { provider: oauth.first, scopes: ['s'], [field]: value }, oauth);
      // detail is optional (§2.2): the schema checks it where it is given.
      await forRule('ERROR-422-AUTHN', () => {
        expectStatus(res, 422);
        expectSchema(res, 'platform-api', 'HTTPValidationError');
      });
    }),
    { numRuns: 40 },
  );
});

test('authentication is served under the v2 version segment', { tag: '@VERSION-AUTHN-V2' }, async ({ platform, testKey, conformanceRun }) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  expectStatus(await authenticate(platform, request(oauth, testKey), oauth), 200);
});

test('whether the authenticate endpoint requires credentials', { tag: '@AUTH-AUTHN-CREDENTIALS' }, async ({ conformanceRun, testKey, observe }, testInfo) => {
  const anonymous = clientWithKey(conformanceRun, 'platform-api', testInfo, undefined);
  skipDeclared(!anonymous, 'the target names no platform-api URL');
  // Observed whatever it answers: a refusal of a made-up provider shows that the key was not asked for first.
  const res = await withEveryField(anonymous!, request(new OAuthProviders(conformanceRun.target), testKey));
  observe('AUTH-AUTHN-CREDENTIALS', `without X-Api-Key → ${res.status} ${res.text.slice(0, 100)}`);
});

test.describe('the flow: a url to visit, then the token', () => {
  test('after the user completes the flow at its url, the same call answers the token', { tag: '@AUTHN-FLOW-COMPLETES' }, async ({
    platform,
    testKey,
    conformanceRun,
  }) => {
    requireCapability(conformanceRun, 'oauth-completion');
    const oauth = new OAuthProviders(conformanceRun.target);
    const first = await authenticate(platform, request(oauth, testKey), oauth);
    expectStatus(first, 200);
    expect([present(first.json.url), present(first.json.auth_id), present(first.json.token)], first.describe('a new flow: url and auth_id, no token')).toEqual([
      true,
      true,
      false,
    ]);
    const pending = await authenticate(platform, request(oauth, testKey), oauth);
    expect([pending.json.auth_id, present(pending.json.token)], pending.describe('before completion, the same flow and still no token')).toEqual([
      first.json.auth_id,
      false,
    ]);
    const visited = await platform.follow(first.json.url!);
    expect(visited.status, `visiting ${first.json.url} completes the flow`).toBe(200);
    const done = await authenticate(platform, request(oauth, testKey), oauth);
    expectStatus(done, 200);
    expect(typeof done.json.token === 'string' && done.json.token !== '', done.describe('the token')).toBe(true);
    const again = await authenticate(platform, request(oauth, testKey), oauth);
    expect(again.json.token, again.describe('the same token next time')).toBe(done.json.token);
  });

  test('force_new starts a new flow instead of answering the token', { tag: '@AUTHN-FORCE-NEW' }, async ({ platform, testKey, conformanceRun }) => {
    requireCapability(conformanceRun, 'oauth-completion');
    const oauth = new OAuthProviders(conformanceRun.target);
    // Without an existing token there is nothing force_new could be answering instead.
    const { first, done } = await completedFlow(platform, oauth, testKey, false);
    const forced = await authenticate(platform, request(oauth, testKey, { force_new: true }), oauth);
    expectStatus(forced, 200);
    expect(present(forced.json.url) && present(forced.json.auth_id), forced.describe('a new url and auth_id')).toBe(true);
    expect(forced.json.auth_id, forced.describe('another flow')).not.toBe(first.json.auth_id);
    expect(forced.json.token ?? null, forced.describe('not the existing token')).not.toBe(done.json.token);
  });
});

test("a user's token for one provider is not answered for another provider", { tag: '@AUTHN-FLOW-COMPLETES' }, async ({
  platform,
  testKey,
  conformanceRun,
}) => {
  requireCapability(conformanceRun, 'oauth-completion');
  const oauth = new OAuthProviders(conformanceRun.target);
  const other = oauth.second();
  const { done: token } = await completedFlow(platform, oauth, testKey, true);
  const elsewhere = await authenticate(platform, request(oauth, testKey, { provider: other }), oauth);
  expectStatus(elsewhere, 200);
  expect(elsewhere.json.token ?? null, elsewhere.describe("another provider's call does not get the first provider's token")).not.toBe(token.json.token);
  expect(present(elsewhere.json.url), elsewhere.describe('it starts a flow of its own')).toBe(true);
});

test('flows of two users never share a token', { tag: '@AUTHN-FLOW-COMPLETES' }, async ({ traceRunIds: ids, platform, testKey, conformanceRun }) => {
  requireCapability(conformanceRun, 'oauth-completion');
  const oauth = new OAuthProviders(conformanceRun.target);
  const [alice, bob] = [`${testKey}-alice-${ids.v4()}`, `${testKey}-bob-${ids.v4()}`];
  // Alice's token first: without it there is nothing bob could be given.
  await completedFlow(platform, oauth, alice, true);
  const b = await authenticate(platform, request(oauth, bob), oauth);
  expectStatus(b, 200);
  expect(present(b.json.token), b.describe("bob does not get alice's token")).toBe(false);
});
