// §4, §5, §7, §9: error shapes, bad input and what refused requests leave behind.
import fc from 'fast-check';
import { expect, test } from '../../harness/fixtures.ts';
import { expectJsonError, expectStatus, rulesOfStep } from '../../harness/checks/index.ts';
import { skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { assertProperty } from '../../harness/property.ts';
import type { Thread } from '../../specs/types/agent-server.ts';
import { expectOnlyRun, newThread, readState, startRun, join } from './runs-steps.ts';
import { expectNoOtherThread } from './threads-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

// §4: "Payloads are JSON unless stated": the answers of the paths §4.5 shows, refusals as much as
// successes (an unknown thread, a malformed body). Left out are the answers whose format §4.5 or §7
// leaves open (copy, stream, wait, join, assistants search; the 409 of reject), the paths it does not
// show, and a 5xx (a crash is the bad-input rules' finding); a refusal with no body has no payload.
test('payloads other than streams are JSON, refusals included, and JSON bodies are accepted', { tag: '@ERROR-JSON-PAYLOADS-AGENT' }, async ({ agent }) => {
  const created = await agent.post<Thread>('/threads', { metadata: { k: 'v' } });
  expectStatus(created, '2xx');
  const id = created.json.thread_id;
  const answers = [
    created,
    await agent.get(`/threads/${id}`),
    await agent.post('/threads/search', { limit: 1 }),
    await agent.get(`/threads/${id}/state`),
    await agent.post(`/threads/${id}/history`, {}),
    // Refusals: unknown ids and malformed bodies.
    await agent.get(`/threads/${UNKNOWN}`),
    await agent.get(`/threads/${UNKNOWN}/state`),
    await agent.post(`/threads/${UNKNOWN}/history`, {}),
    await agent.post(`/threads/${UNKNOWN}/runs`, { assistant_id: 'agent', input: {} }),
    await agent.post('/threads', { metadata: 'not an object' }),
    await agent.post('/threads', undefined, { rawBody: '{"metadata":', headers: { 'content-type': 'application/json' } }),
    await agent.post('/threads/search', { limit: 'ten' }),
    await agent.post(`/threads/${id}/runs`, { input: {} }),
  ];
  const judged = answers.filter((res) => res.status < 500 && (res.status < 400 || res.text !== ''));
  for (const res of judged) {
    expect(res.headers['content-type'] ?? '', res.describe('JSON')).toMatch(/application\/json/);
    expect(() => JSON.parse(res.text), res.describe('parses as JSON')).not.toThrow();
  }
});

// One shape for every error of the plane: each resource's unknown id and each endpoint's refused
// body, as a server may build the errors of each route apart. An answer that is no error at all
// is the rule of that endpoint's own, not this one's: only the errors are judged.
test('an error body is a JSON object whose detail is a string', { tag: '@ERROR-SHAPE-AGENT' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const errors = [
    await agent.get(`/threads/${UNKNOWN}`),
    await agent.post('/threads', { metadata: 'not an object' }),
    await agent.post('/threads/search', { limit: 'ten' }),
    await agent.get(`/threads/${thread}/state/${UNKNOWN}`),
    await agent.post(`/threads/${thread}/history`, { limit: 'two' }),
    await agent.get(`/threads/${thread}/runs/${UNKNOWN}`),
    await agent.get(`/threads/${thread}/runs/${UNKNOWN}/join`),
    await agent.post(`/threads/${thread}/runs`, { input: {} }),
    await agent.post(`/threads/${thread}/runs/wait`, { input: {} }),
    await agent.post('/runs/wait', { input: {} }),
    await agent.get(`/assistants/${UNKNOWN}`),
    await agent.post('/assistants/search', { limit: 'ten' }),
    await agent.post(`/threads/${thread}/runs/crons`, { assistant_id: 'agent' }),
    await agent.post('/runs/crons', { assistant_id: 'agent' }),
    await agent.delete(`/runs/crons/${UNKNOWN}`),
  ].filter((res) => res.status >= 400);
  for (const res of errors) {
    expectJsonError(res);
    expect(typeof (res.json as { detail?: unknown }).detail, res.describe('detail is a string')).toBe('string');
  }
});

test('every endpoint answers arbitrary bad input with a 4xx JSON error, never a 5xx', { tag: '@ERROR-BAD-INPUT-AGENT' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const endpoints = [
    '/threads',
    '/threads/search',
    `/threads/${thread}/history`,
    `/threads/${thread}/runs`,
    `/threads/${thread}/runs/wait`,
    '/runs/wait',
    '/assistants/search',
  ];
  // Bodies that are not valid for any of these endpoints: wrong JSON types or broken JSON.
  const badBody = fc.oneof(
    fc.constantFrom('{', '{"a":', '[1,', 'null x', '"unterminated'),
    fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.array(fc.integer())).map((v) => JSON.stringify(v)),
    fc
      .record({ limit: fc.oneof(fc.string(), fc.constant(-5), fc.double({ noInteger: true })), metadata: fc.oneof(fc.string(), fc.integer()) })
      .map((v) => JSON.stringify(v)),
  );
  await assertProperty(
    fc.asyncProperty(fc.constantFrom(...endpoints), badBody, async (path, body) => {
      const res = await agent.post(path, undefined, { rawBody: body, headers: { 'content-type': 'application/json' } });
      expectJsonError(res);
    }),
    { numRuns: 40 },
  );
  for (const path of [`/threads/not-a-uuid`, `/threads/not-a-uuid/state`, `/threads/${thread}/runs/not-a-uuid`]) expectJsonError(await agent.get(path));
});

test('a refused request changes nothing: no run, no state change', { tag: '@ERROR-REFUSED-UNCHANGED-AGENT' }, async ({ agent }) => {
  const thread = await newThread(agent);
  const run = await startRun(agent, thread, { input: { topic: 'before' } });
  await join(agent, thread, run.run_id);
  const before = await readState(agent, thread);
  const refusals = [
    await agent.post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { topic: 'x' }, multitask_strategy: 'bogus' }),
    await agent.post(`/threads/${thread}/runs`, { assistant_id: UNKNOWN, input: { topic: 'x' } }),
    await agent.post(`/threads/${thread}/runs/wait`, { input: { topic: 'x' } }),
  ];
  // The rule is about what a refusal leaves behind: a request not refused is its own rules' finding
  // (and the body's shape ERROR-SHAPE-AGENT's); this one asks only that nothing changed.
  for (const res of refusals) {
    if (res.status < 400 || res.status >= 500) {
      skipForPrecondition(`precondition failed: the request was not refused with a 4xx: ${res.describe()}`, [...rulesOfStep(res), 'ERROR-BAD-INPUT-AGENT']);
    }
  }
  await expectOnlyRun(agent, thread, run.run_id, 'the refused requests');
  expect(await readState(agent, thread), 'the state is unchanged').toEqual(before);
});

test('which status unknown ids get', { tag: '@ERROR-UNKNOWN-ID-STATUS-AGENT' }, async ({ agent, observe }) => {
  const thread = await newThread(agent);
  const statuses = [
    `thread ${(await agent.get(`/threads/${UNKNOWN}`)).status}`,
    `run ${(await agent.get(`/threads/${thread}/runs/${UNKNOWN}`)).status}`,
    `assistant ${(await agent.get(`/assistants/${UNKNOWN}`)).status}`,
    `copy ${(await agent.post(`/threads/${UNKNOWN}/copy`)).status}`,
  ];
  observe('ERROR-UNKNOWN-ID-STATUS-AGENT', statuses.join(', '));
});

test('whether the agent server asks for credentials', { tag: '@AUTH-AGENT-SERVER' }, async ({ agent, observe }) => {
  const res = await agent.get(`/threads/${UNKNOWN}`, { headers: { 'x-api-key': '' } });
  const created = await agent.post('/threads', {}, { headers: { 'x-api-key': '' } });
  observe('AUTH-AGENT-SERVER', `without an API key: GET thread → ${res.status}, POST /threads → ${created.status}`);
});

test('missing or invalid credentials answer 401 or 403 with a JSON error and change nothing', { tag: '@AUTH-AGENT-MISSING-CREDENTIALS' }, async ({
  agent,
  testKey,
}) => {
  // The rule is about a server that requires credentials: one that serves without them is configured out of it.
  const open = await agent.post('/threads/search', { limit: 1 }, { headers: { 'x-api-key': 'apc-invalid-key' } });
  skipDeclared(open.status < 400, `the target's configuration serves the agent server without credentials, so there is nothing to refuse: ${open.describe()}`);
  const refused = await agent.post('/threads', { metadata: { apc_test: testKey } }, { headers: { 'x-api-key': 'apc-invalid-key' } });
  expectJsonError(refused, [401, 403]);
  await expectNoOtherThread(agent, testKey, 'the refused request');
});

test('GET /info names the server version', { tag: '@VERSION-AGENT-SERVER-INFO' }, async ({ agent }) => {
  const res = await agent.get<{ version?: unknown }>('/info');
  expectStatus(res, 200);
  expect(typeof res.json.version, res.describe('version')).toBe('string');
  expect(String(res.json.version), res.describe('a dotted version')).toMatch(/^\d+\.\d+\.\d+/);
});
