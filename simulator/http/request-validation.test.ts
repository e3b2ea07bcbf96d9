import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import { ApiError } from './errors.ts';
import type { RequestViolation } from './request-violations.ts';
import { checkedBody } from './request-validation.ts';

const THREAD = '01a2019e-7617-7531-8d44-d0b7d1cb0011';
const JSON_TYPE = { 'content-type': 'application/json' };
const listRuns = contract().operation('agent-server', 'listRuns');
const waitRun = contract().operation('agent-server', 'waitRun');
const createThread = contract().operation('agent-server', 'createThread');

/** The refusal `checkedBody` throws, as status and message; undefined when it passes. */
function refusal(run: () => unknown): { status: number; message: string } | undefined {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, message: error.message };
  }
  return undefined;
}

test('a body is JSON, sent as such: another type is 415, invalid JSON 422, none is no body', () => {
  const bytes = Buffer.from('{"metadata":{}}');
  expect(checkedBody(createThread, JSON_TYPE, {}, new URLSearchParams(), bytes, false, {}, false)).toEqual({ metadata: {} });
  expect(checkedBody(createThread, { 'content-type': 'application/merge-patch+json' }, {}, new URLSearchParams(), bytes, false, {}, false)).toEqual({
    metadata: {},
  });
  expect(refusal(() => checkedBody(createThread, { 'content-type': 'text/plain' }, {}, new URLSearchParams(), bytes, false, {}, false))).toEqual({
    status: 415,
    message: "Unsupported Content-Type 'text/plain': send the body as application/json",
  });
  expect(refusal(() => checkedBody(createThread, JSON_TYPE, {}, new URLSearchParams(), Buffer.from('{'), false, {}, false))?.status).toBe(422);
  expect(checkedBody(createThread, {}, {}, new URLSearchParams(), Buffer.alloc(0), false, {}, false)).toBeUndefined();
  expect(checkedBody(createThread, {}, {}, new URLSearchParams(), bytes, true, {}, false), 'raw: the bytes as they came').toBe(bytes);
});

test('path and query parameters and the body are checked against the operation, naming each place', () => {
  const query = (text: string) => new URLSearchParams(text);
  expect(refusal(() => checkedBody(listRuns, {}, { thread_id: THREAD }, query('limit=10&offset=0'), Buffer.alloc(0), false, {}, false))).toBeUndefined();
  expect(refusal(() => checkedBody(listRuns, {}, { thread_id: 'nope' }, query('limit=0&offset=x'), Buffer.alloc(0), false, {}, false))).toEqual({
    status: 422,
    message: expect.stringMatching(/^Invalid request: path\.thread_id: .*; query\.limit: .*; query\.offset: /),
  });
  expect(refusal(() => checkedBody(waitRun, {}, { thread_id: THREAD }, query(''), Buffer.alloc(0), false, {}, false))).toEqual({
    status: 422,
    message: 'Invalid request: body: a JSON body is required',
  });
});

test('what the open schemas let through is noted, and refused as well in strict mode', () => {
  const noted: { violations?: RequestViolation[] } = {};
  const typo = Buffer.from(JSON.stringify({ assistant_id: 'agent', inptu: {} }));
  checkedBody(waitRun, JSON_TYPE, { thread_id: THREAD }, new URLSearchParams('colour=red'), typo, false, noted, false);
  expect(noted.violations?.map((v) => v.type)).toEqual(['extra_forbidden', 'extra_forbidden']);
  const strict: { violations?: RequestViolation[] } = {};
  expect(refusal(() => checkedBody(waitRun, JSON_TYPE, { thread_id: THREAD }, new URLSearchParams(), typo, false, strict, true))).toEqual({
    status: 422,
    message: expect.stringContaining('inptu'),
  });
  expect(strict.violations, 'noted before the refusal, which carries them').toHaveLength(1);
});
