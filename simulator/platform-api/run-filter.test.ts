import { expect, test } from '@playwright/test';
import { FilterError, matchesFilter, parseFilter } from './run-filter.ts';

const run = { id: 'a', name: 'x', run_type: 'llm', status: 'success', tags: ['t1'], start_time: '2026-11-22T05:01:51.431001Z', parent_run_id: null };
const matches = (text: string) => matchesFilter(parseFilter(text), run);

test('the comparators and combinators the client sends select what they say', () => {
  expect(matches('eq(name, "x")')).toBe(true);
  expect(matches("eq(name, 'y')")).toBe(false);
  expect(matches('and(eq(run_type, "llm"), has(tags, "t1"))')).toBe(true);
  expect(matches('or(eq(name, "y"), neq(status, "error"))')).toBe(true);
  expect(matches('not(has(tags, "t1"))')).toBe(false);
  expect(matches('gt(start_time, "2026-11-22T05:00:00Z")')).toBe(true);
  expect(matches('lte(start_time, "2026-11-22T05:00:00Z")')).toBe(false);
  expect(matches('eq(parent_run_id, null)')).toBe(true);
});

test('a part the simulator does not apply is refused, named, never ignored', () => {
  const refusal = (text: string) => {
    try {
      parseFilter(text);
    } catch (error) {
      if (error instanceof FilterError) return error.message;
      throw error;
    }
    return undefined;
  };
  expect(refusal('search("hello")')).toMatch(/operator 'search'/);
  expect(refusal('eq(metadata_key, "k")')).toMatch(/field 'metadata_key'/);
  expect(refusal('eq(name, "x"')).toMatch(/expected '\)'/);
  expect(refusal('eq(name, "x") eq(name, "y")')).toMatch(/after the end/);
  expect(refusal('has(name, "x")')).toMatch(/field 'name' in has/);
});
