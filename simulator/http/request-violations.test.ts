import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import { queryViolations, requestViolationCheck, strictIssues } from './request-violations.ts';

const violationsOf = (plane: 'agent-server' | 'platform-api', operationId: string, body: unknown) => {
  const check = requestViolationCheck(contract().operation(plane, operationId));
  if (!check) throw new Error(`${operationId} has nothing to check`);
  return check(body);
};

const RUN_ID = '01a2019e-7617-7531-8d44-d0b7d1cb0011';

test('a typo of a declared field is an unknown field, with the field it was probably meant to be', () => {
  expect(violationsOf('agent-server', 'waitRun', { assistant_id: 'agent', inptu: { q: 1 } })).toEqual([
    { at: '/inptu', type: 'extra_forbidden', message: "unknown field 'inptu': did you mean 'input'?" },
  ]);
  expect(violationsOf('agent-server', 'waitRun', { assistant_id: 'agent', zzzzzz: 1 })).toEqual([
    { at: '/zzzzzz', type: 'extra_forbidden', message: "unknown field 'zzzzzz'" },
  ]);
});

test('free-form maps (input, metadata, config) take any key; a valid body has none', () => {
  const body = { assistant_id: 'agent', input: { anything: { deep: 1 } }, metadata: { mine: true }, config: { configurable: { x: 1 } } };
  expect(violationsOf('agent-server', 'waitRun', body)).toEqual([]);
  expect(violationsOf('agent-server', 'createThread', { metadata: { inptu: 1 } })).toEqual([]);
});

test('run_type outside the values the langsmith client knows is named, on POST /runs and inside a batch', () => {
  expect(violationsOf('platform-api', 'createRun', { id: RUN_ID, run_type: 'chain' })).toEqual([]);
  const [banana] = violationsOf('platform-api', 'createRun', { id: RUN_ID, run_type: 'banana' });
  expect(banana).toMatchObject({ at: '/run_type', type: 'enum' });
  expect(banana.message).toMatch(/^'banana' is not one of tool, chain, llm, retriever, embedding, prompt, parser \(.*langsmith JS client/);
  // The batch's patch entries are an allOf over TraceRun: its fields, and its values, hold there too.
  expect(violationsOf('platform-api', 'ingestRunsBatch', { post: [{ id: RUN_ID, run_typ: 'llm' }], patch: [{ id: RUN_ID, run_type: 'banana' }] })).toEqual([
    { at: '/post/0/run_typ', type: 'extra_forbidden', message: "unknown field 'run_typ': did you mean 'run_type'?" },
    expect.objectContaining({ at: '/patch/0/run_type', type: 'enum' }),
  ]);
});

test('values of other types are left to the validator, and odd keys come back as JSON pointers', () => {
  expect(violationsOf('platform-api', 'createRun', { id: RUN_ID, run_type: 7 })).toEqual([]);
  expect(violationsOf('agent-server', 'waitRun', { assistant_id: 'agent', 'a/b~c': 1 })).toEqual([
    { at: '/a~1b~0c', type: 'extra_forbidden', message: "unknown field 'a/b~c'" },
  ]);
});

test('every operation with a JSON body compiles (refs resolve), and one without a body has no check', () => {
  for (const operation of [...contract().operations, ...contract().adminOperations]) requestViolationCheck(operation);
  expect(requestViolationCheck(contract().operation('agent-server', 'getThread'))).toBeUndefined();
});

test('a query parameter not documented is a violation; one documented but not implemented is refused, whatever the mode', () => {
  const documented = [{ name: 'limit' }, { name: 'filter', 'x-not-implemented': 'the filter grammar is not served' }];
  const asked = queryViolations(documented, new URLSearchParams('limit=3&limt=4&filter=eq(name,"a")&filter=x'));
  expect(asked.violations).toEqual([{ in: 'query', at: 'limt', type: 'extra_forbidden', message: "unknown query parameter 'limt': did you mean 'limit'?" }]);
  expect(asked.refused).toEqual([
    {
      loc: ['query', 'filter'],
      msg: "the simulator does not implement the query parameter 'filter' (the filter grammar is not served): send the request without it",
      type: 'not_implemented',
    },
  ]);
  expect(strictIssues(asked.violations)).toEqual([
    { loc: ['query', 'limt'], msg: "unknown query parameter 'limt': did you mean 'limit'?", type: 'extra_forbidden' },
  ]);
  expect(queryViolations(documented, new URLSearchParams('limit=1'))).toEqual({ violations: [], refused: [] });
});
