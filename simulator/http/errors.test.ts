// The error bodies each plane's style produces from one ApiError, and the helpers that catch one.
// The agent server answers {detail: "<message>"} always (ERROR-SHAPE-AGENT); the control plane and
// the platform API answer a 422 in the §2.2 list form and anything else as {detail: "<message>"}
// (ERROR-SHAPE-CONTROL-PLANE, ERROR-SHAPE-PLATFORM, ERROR-VALIDATION-DETAIL).
import { expect, test } from '@playwright/test';
import { ApiError, awaitedRefusalOf, conflict, errorBody, notFound, refusalOf, unprocessable, type ValidationIssue } from './errors.ts';

const issues: ValidationIssue[] = [
  { loc: ['body', 'limit'], msg: 'must be an integer', type: 'int_type' },
  { loc: ['body', 'items', 0, 'id'], msg: 'field required', type: 'missing' },
];

test('the helpers make refusals with their status, message and no extra headers', () => {
  const missing = notFound('Thread x not found');
  expect(missing).toBeInstanceOf(Error);
  expect(missing).toBeInstanceOf(ApiError);
  expect([missing.status, missing.message, missing.issues, missing.headers]).toEqual([404, 'Thread x not found', undefined, {}]);
  expect([conflict('busy').status, conflict('busy').message]).toEqual([409, 'busy']);
  expect(unprocessable('bad', issues)).toMatchObject({ status: 422, message: 'bad', issues });
  expect(new ApiError(429, 'slow down', undefined, { 'retry-after': '1' }).headers).toEqual({ 'retry-after': '1' });
});

test('the detail-string style answers every refusal as {detail: message}, a 422 included', () => {
  expect(errorBody(notFound('Thread x not found'), 'detail-string')).toEqual({ detail: 'Thread x not found' });
  expect(errorBody(conflict('busy'), 'detail-string')).toEqual({ detail: 'busy' });
  expect(errorBody(unprocessable('body.limit must be an integer', issues), 'detail-string')).toEqual({ detail: 'body.limit must be an integer' });
});

test('the FastAPI style answers a 422 with its issues as the detail list', () => {
  expect(errorBody(unprocessable('two problems', issues), 'fastapi')).toEqual({ detail: issues });
});

test('a FastAPI 422 without issues still answers the list form, its message as one body issue', () => {
  // ERROR-VALIDATION-LOC, ERROR-VALIDATION-MSG, ERROR-VALIDATION-TYPE: loc, msg and type are always there.
  expect(errorBody(new ApiError(422, 'integration_id must be a UUID'), 'fastapi')).toEqual({
    detail: [{ loc: ['body'], msg: 'integration_id must be a UUID', type: 'value_error' }],
  });
});

test('the FastAPI style answers any other status as {detail: message}, issues or not', () => {
  expect(errorBody(new ApiError(401, 'Invalid API key'), 'fastapi')).toEqual({ detail: 'Invalid API key' });
  expect(errorBody(notFound('Deployment d not found'), 'fastapi')).toEqual({ detail: 'Deployment d not found' });
  expect(errorBody(new ApiError(400, 'bad request', issues), 'fastapi')).toEqual({ detail: 'bad request' });
});

test('refusalOf answers the ApiError an action threw, nothing when it did not throw, and lets other errors through', () => {
  const refused = notFound('gone');
  expect(
    refusalOf(() => {
      throw refused;
    }),
  ).toBe(refused);
  expect(refusalOf(() => 'fine')).toBeUndefined();
  expect(() =>
    refusalOf(() => {
      throw new TypeError('a bug');
    }),
  ).toThrow(TypeError);
});

test('awaitedRefusalOf does the same for an action that refuses by a rejected promise', async () => {
  const refused = conflict('busy');
  expect(
    await awaitedRefusalOf(async () => {
      throw refused;
    }),
  ).toBe(refused);
  expect(
    await awaitedRefusalOf(() => {
      throw refused;
    }),
    'a synchronous throw too',
  ).toBe(refused);
  expect(await awaitedRefusalOf(async () => 'fine')).toBeUndefined();
  await expect(
    awaitedRefusalOf(async () => {
      throw new RangeError('a bug');
    }),
  ).rejects.toThrow(RangeError);
});
