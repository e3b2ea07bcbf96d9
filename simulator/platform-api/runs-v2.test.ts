import { expect, test } from '@playwright/test';
import { refusalOf } from '../http/errors.ts';
import { projectRun, selectsOf, v1Query } from './runs-v2.ts';

test('a v2 run holds its id and the fields selected, run_type and status upper case', () => {
  const run = {
    id: 'r',
    name: 'n',
    run_type: 'llm',
    status: 'success',
    start_time: '2026-01-01T00:00:00Z',
    end_time: '2026-01-01T00:00:02.5Z',
    parent_run_id: null,
  };
  expect(projectRun(run, [])).toEqual({ id: 'r' });
  expect(projectRun(run, ['NAME', 'RUN_TYPE', 'STATUS', 'LATENCY_SECONDS', 'IS_ROOT'])).toEqual({
    id: 'r',
    name: 'n',
    run_type: 'LLM',
    status: 'SUCCESS',
    latency_seconds: 2.5,
    is_root: true,
  });
  expect(refusalOf(() => selectsOf(['NAME', 'TOTAL_COST'], ['query', 'selects']))?.message).toMatch(/does not answer TOTAL_COST/);
});

test('a v2 query maps to the v1 one, its window a day before now by default; what it cannot apply is refused', () => {
  const now = Date.parse('2026-01-02T00:00:00Z');
  const { query, window, selects } = v1Query({ project_ids: ['p'], run_type: 'LLM', has_error: true, selects: ['NAME'] }, now);
  expect([query.session, query.run_type, query.error, selects]).toEqual([['p'], 'llm', true, ['NAME']]);
  expect(window).toEqual([Date.parse('2026-01-01T00:00:00Z'), now]);
  expect(refusalOf(() => v1Query({ ai_search: 'x' }, now))?.message).toMatch(/does not apply ai_search/);
});
