import { expect, test } from '@playwright/test';
import type { ValidationIssue } from '../http/errors.ts';
import { batchFeedbackIssues, createdRunIssues, runTimes, updateIssues, uuidKey } from './trace-run-checks.ts';

const ROOT = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
const current = { id: ROOT, trace_id: ROOT, dotted_order: `20261122T050151Z${ROOT}`, parent_run_id: null, start_time: '2026-11-22T05:01:51.431001Z' };
const fields = (issues: ValidationIssue[]) => issues.map((i) => i.loc.at(-1));

test('a created run needs its id; an update does not', () => {
  expect(fields(createdRunIssues({ name: 'x' }, ['body']))).toEqual(['id']);
  expect(createdRunIssues({ id: ROOT }, ['body'])).toEqual([]);
});

test('times are kept normalized, and a value that is no time is refused', () => {
  const issues: ValidationIssue[] = [];
  expect(runTimes({ start_time: 1795323711431, end_time: null }, ['body'], issues)).toEqual({ start: '2026-11-22T05:01:51.431000Z', end: null });
  expect(runTimes({ start_time: 'yesterday' }, ['body'], issues)).toEqual({});
  expect(fields(issues)).toEqual(['start_time']);
});

test('an update changes neither the id, the lineage nor the second the run started in', () => {
  const check = (body: Record<string, unknown>) => fields(updateIssues(current, body, ['body'], runTimes(body, ['body'], [])));
  expect(check({ outputs: {}, trace_id: ROOT.toUpperCase(), parent_run_id: null, start_time: '2026-11-22T05:01:51.9Z' })).toEqual([]);
  expect(check({ id: '0c2b9d5e-6a1f-4e3b-8c7d-9e0f1a2b3c4d' })).toEqual(['id']);
  expect(check({ dotted_order: `20261122T050152Z${ROOT}`, parent_run_id: ROOT })).toEqual(['dotted_order', 'parent_run_id']);
  expect(check({ start_time: '2026-11-22T05:01:52Z' })).toEqual(['start_time']);
});

test("a batch's feedback on a run names its trace; POST /feedback's need not", () => {
  expect(fields(batchFeedbackIssues({ key: 'k', run_id: ROOT }, ['feedback'], 'caller'))).toEqual(['trace_id']);
  expect(batchFeedbackIssues({ key: 'k', run_id: ROOT }, ['body'], 'service')).toEqual([]);
});

test('a UUID is keyed lower case, without the urn prefix its format admits', () => {
  expect(uuidKey(`urn:uuid:${ROOT.toUpperCase()}`)).toBe(ROOT);
});
