import { expect, test } from '@playwright/test';
import { ApiError } from '../http/errors.ts';
import { WorkspaceDirectory } from './workspaces.ts';

const directory = WorkspaceDirectory.fromFixture();
const published = directory.describe();
const key = (role: string) => published.api_keys.find((k) => k.role === role)!.key;
const [alpha, beta] = published.workspaces;

function refusal(run: () => unknown): number | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  return undefined;
}

test('a workspace key acts in its workspace', () => {
  expect(directory.resolve({ apiKey: key('primary') }, ['api-key']).workspace).toEqual(alpha);
  expect(directory.resolve({ apiKey: key('second-workspace') }, ['api-key']).workspace).toEqual(beta);
});

test('x-tenant-id selects among the workspaces of a key, the default applying without it', () => {
  expect(directory.resolve({ apiKey: key('multi-workspace') }, ['api-key']).workspace).toEqual(alpha);
  expect(directory.resolve({ apiKey: key('multi-workspace'), tenantId: beta.id.toUpperCase() }, ['api-key']).workspace).toEqual(beta);
});

test('missing or unknown credentials answer 401, a workspace out of reach 403', () => {
  expect(refusal(() => directory.resolve({}, ['api-key']))).toBe(401);
  expect(refusal(() => directory.resolve({ apiKey: 'nope' }, ['api-key']))).toBe(401);
  expect(refusal(() => directory.resolve({ apiKey: key('primary'), tenantId: beta.id }, ['api-key']))).toBe(403);
  expect(refusal(() => directory.resolve({ apiKey: key('org-scoped') }, ['api-key']))).toBe(403);
  expect(directory.resolve({ apiKey: key('org-scoped'), tenantId: beta.id }, ['api-key']).workspace).toEqual(beta);
});

test('a bearer token counts only where the operation accepts bearer authentication', () => {
  const token = published.bearer_tokens[0].token;
  expect(refusal(() => directory.resolve({ bearer: token }, ['api-key']))).toBe(401);
  expect(directory.resolve({ bearer: token, tenantId: beta.id }, ['api-key', 'bearer'])).toEqual({ workspace: beta, scheme: 'bearer' });
  expect(refusal(() => directory.resolve({ bearer: key('primary') }, ['api-key', 'bearer']))).toBe(401);
});

test('a key is known in the region where its account signed up only', () => {
  const eu = published.workspaces.find((w) => w.region === 'eu')!;
  expect(directory.resolve({ apiKey: key('eu-primary') }, ['api-key'], 'eu').workspace).toEqual(eu);
  expect(directory.resolve({ apiKey: key('primary') }, ['api-key'], 'us').workspace).toEqual(alpha);
  expect(refusal(() => directory.resolve({ apiKey: key('primary') }, ['api-key'], 'eu'))).toBe(401);
  expect(refusal(() => directory.resolve({ apiKey: key('eu-primary') }, ['api-key'], 'us'))).toBe(401);
  // Where no region is asked (the control plane, one address), any key is known.
  expect(directory.resolve({ apiKey: key('eu-primary') }, ['api-key']).workspace).toEqual(eu);
  expect(published.api_keys.map((k) => [k.role, k.region])).toContainEqual(['eu-primary', 'eu']);
});
