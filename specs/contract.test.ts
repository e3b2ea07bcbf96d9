// The contract as data is itself checked: the OpenAPI documents against the OpenAPI 3.1
// schema, the catalogue and the rate-limit table against their own schemas, and the
// references between them.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { APIS, contract, PLANES, RULE_KEYS } from './contract.ts';

const load = (file: string) => parseYaml(readFileSync(new URL(file, import.meta.url), 'utf8')) as unknown;
const json = (file: string) => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as object;

// The simulator's admin protocol too: its schemas are compiled into the contract as the planes' are.
for (const plane of APIS) {
  test(`specs/openapi/${plane}.yaml is a valid OpenAPI 3.1 document`, async () => {
    const result = await new Validator().validate(load(`./openapi/${plane}.yaml`) as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect((load(`./openapi/${plane}.yaml`) as { openapi: string }).openapi).toBe('3.1.0');
  });
}

test('every operation has a unique operationId within its plane', () => {
  for (const plane of PLANES) {
    const ids = contract()
      .operations.filter((o) => o.plane === plane)
      .map((o) => o.operationId);
    expect(ids.length, plane).toBeGreaterThan(4);
    expect(new Set(ids).size, `${plane}: ${ids.join(', ')}`).toBe(ids.length);
  }
});

test('specs/rules.yaml matches its schema, and ids are unique', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(json('./rules.schema.json'));
  const rules = load('./rules.yaml');
  expect(validate(rules), JSON.stringify(validate.errors, null, 2)).toBe(true);
  const ids = contract().rules.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBeGreaterThan(100);
});

test('every rule names its source: a MUST only the spec, an interpretation a SHOULD at most, a service rule its reference', () => {
  const wrong = contract().rules.filter((r) => (r.level !== 'SHOULD' && r.source !== 'spec') || (r.source === 'service') !== (r.reference !== undefined));
  expect(wrong.map((r) => `${r.id} (${r.level}, ${r.source})`)).toEqual([]);
  expect(new Set(contract().rules.map((r) => r.source))).toEqual(new Set(['spec', 'service', 'interpretation']));
});

test("each rule's operations exist in its plane's OpenAPI document", () => {
  for (const rule of contract().rules) {
    for (const operationId of rule.operations ?? []) {
      expect(() => contract().operation(rule.plane, operationId), `${rule.id} names ${operationId}`).not.toThrow();
    }
  }
});

test('every operation the spec does not show names the SHOULD rule that says the service serves it', () => {
  // A test whose evidence needs such an operation skips when the target does not serve it, explained by that rule.
  const notShown = contract().operations.filter((op) => op.notShown);
  expect(notShown.length).toBeGreaterThan(10);
  const wrong = notShown.flatMap((op) => {
    const id = op.document['x-rule'];
    const rule = id === undefined ? undefined : contract().rule(id);
    if (!rule) return [`${op.plane} ${op.operationId}: ${id === undefined ? 'no x-rule' : `x-rule ${id} is no rule`}`];
    if (rule.plane !== op.plane || rule.level !== 'SHOULD' || !rule.operations?.includes(op.operationId))
      return [`${op.plane} ${op.operationId}: ${id} must be a SHOULD rule of its plane that lists it among its operations`];
    return [];
  });
  expect(wrong).toEqual([]);
});

test("an operation's spec form (x-spec-form) is a shown operation of its plane, with its method, that has no spec form itself", () => {
  // The rate-limit suites send that form in its place where a target serves only the path the spec's table writes.
  const withForm = contract().operations.filter((op) => op.specForm !== undefined);
  expect(withForm.map((op) => op.operationId)).toContain('updateRun');
  for (const op of withForm) {
    const form = contract().operation(op.plane, op.specForm!);
    expect([form.method, form.notShown, form.specForm], `${op.operationId}'s spec form ${form.operationId}`).toEqual([op.method, false, undefined]);
  }
});

/** Every `x-` key of every document of specs/openapi, where it stands (a JSON pointer). */
function extensionKeys(): { document: string; at: string; key: string; value: unknown }[] {
  const found: { document: string; at: string; key: string; value: unknown }[] = [];
  const walk = (document: string, node: unknown, at: string): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, inner] of Object.entries(node)) {
      if (key.startsWith('x-')) found.push({ document, at, key, value: inner });
      walk(document, inner, `${at}/${key}`);
    }
  };
  for (const [document, content] of Object.entries(contract().documents)) walk(document, content, '');
  return found;
}

test(`specs/openapi ties a node to rules only by ${RULE_KEYS.join(', ')}`, () => {
  // Any other key that names a rule (or says it does) is a second word for one of these, or an unread one.
  const ruleKeys: readonly string[] = RULE_KEYS;
  const names = (value: unknown) => (Array.isArray(value) ? value : [value]).some((v) => typeof v === 'string' && contract().rule(v) !== undefined);
  const others = extensionKeys()
    .filter(({ key, value }) => !ruleKeys.includes(key) && (/rule|implement/.test(key) || names(value)))
    .map(({ document, at, key }) => `${document}.yaml#${at}: ${key}`);
  expect(others, `rule keys outside RULE_KEYS (specs/contract.ts):\n${others.join('\n')}`).toEqual([]);
});

test('every rule key names rules of its own plane, in the form its meaning takes', () => {
  const wrong: string[] = [];
  const counted = new Map<string, number>();
  for (const { document, at, key, value } of extensionKeys()) {
    if (!(RULE_KEYS as readonly string[]).includes(key)) continue;
    counted.set(key, (counted.get(key) ?? 0) + 1);
    const where = `${document}.yaml#${at}: ${key}`;
    if (key === 'x-rule-about') {
      if (!['type', 'effect', 'accepted'].includes(value as string)) wrong.push(`${where} is ${JSON.stringify(value)}, not type, effect or accepted`);
      continue;
    }
    const ids = key === 'x-implements' ? value : [value];
    if (!Array.isArray(ids) || (key === 'x-implements') !== Array.isArray(value)) {
      wrong.push(`${where} must be ${key === 'x-implements' ? 'a list of rule ids' : 'one rule id'}`);
      continue;
    }
    for (const id of ids) if (contract().rule(String(id))?.plane !== document) wrong.push(`${where} names ${id}, no rule of ${document}`);
  }
  expect(wrong).toEqual([]);
  for (const key of RULE_KEYS) expect(counted.get(key), `${key} is used`).toBeGreaterThan(0);
});

test('specs/rate-limits.yaml matches its schema and names existing rules', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(json('./rate-limits.schema.json'));
  expect(validate(load('./rate-limits.yaml')), JSON.stringify(validate.errors, null, 2)).toBe(true);
  for (const row of contract().rateLimits) expect(contract().rule(row.rule), `${row.id} names ${row.rule}`).toBeDefined();
});

// The contract compiles its schemas without checking them against the meta-schema (a compile of it in every
// process that loads the contract): this test is where an invalid one shows.
test('the schema files the contract compiles are valid JSON Schema 2020-12', () => {
  const ajv = new Ajv2020({ strict: false });
  const { deploymentConfigSchema, targetConfigSchema, expectationsSchema } = contract();
  for (const [name, schema] of Object.entries({ deploymentConfigSchema, targetConfigSchema, expectationsSchema })) {
    expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true);
  }
  expect(ajv.validateSchema({ type: 'objec' }), 'a schema the meta-schema refuses').toBe(false);
});

test('the deployment configuration schema accepts a langgraph.json and refuses a wrong type', () => {
  expect(
    contract().validateDeploymentConfig({
      graphs: { agent: './graph.ts:graph' },
      webhooks: { env_prefix: 'LG_WEBHOOK_', url: { require_https: true, allowed_ports: [443] } },
      http: { disable_webhooks: false },
    }),
  ).toEqual([]);
  expect(contract().validateDeploymentConfig({ webhooks: { url: { require_https: 'yes' } } }).length).toBeGreaterThan(0);
});

test('responses are checked against the documented status and schema', () => {
  const getThread = contract().operation('agent-server', 'getThread');
  const thread = {
    thread_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    metadata: {},
    status: 'idle',
    config: {},
    values: {},
  };
  expect(contract().validateResponse(getThread, 200, 'application/json', thread)).toEqual([]);
  expect(contract().validateResponse(getThread, 200, 'application/json', { ...thread, status: 'sleeping' })[0].message).toMatch(/one of/);
  expect(contract().validateResponse(getThread, 418, 'application/json', {})[0].message).toMatch(/not documented/);
  expect(contract().validateResponse(getThread, 200, 'text/plain', 'x')[0].message).toMatch(/content-type/);
});

test('a concrete request path finds its operation, the most specific template first', () => {
  expect(contract().findOperation('agent-server', 'POST', '/threads/search')?.operation.operationId).toBe('searchThreads');
  expect(contract().findOperation('agent-server', 'GET', '/threads/abc/state/cp1')?.params).toEqual({ thread_id: 'abc', checkpoint_id: 'cp1' });
  expect(contract().findOperation('agent-server', 'DELETE', '/threads')).toBeUndefined();
});

test("a schema's enum, or a property's, is read as the document writes it", () => {
  expect(contract().enumOf('agent-server', 'Thread', 'status')).toEqual(['idle', 'busy', 'interrupted', 'error']);
  expect(contract().enumOf('agent-server', 'RunStatus')).toEqual(['pending', 'running', 'error', 'success', 'timeout', 'interrupted']);
  expect(contract().enumOf('agent-server', 'RunCreate', 'multitask_strategy')).toEqual(['reject', 'rollback', 'interrupt', 'enqueue']);
  expect(() => contract().enumOf('agent-server', 'Thread', 'metadata')).toThrow(/no enum/);
  expect(() => contract().enumOf('agent-server', 'NoSuchSchema')).toThrow(/No schema/);
});

test('the run statuses split into those in progress and those a run ends in; the final ones are among the latter', () => {
  const { values, inProgress, ended, final } = contract().runStatuses;
  expect(inProgress).toEqual(['pending', 'running']);
  expect(ended).toEqual(['error', 'success', 'timeout', 'interrupted']);
  expect([...inProgress, ...ended].sort()).toEqual([...values].sort());
  expect(final).toEqual(['success', 'error']);
  expect(final.filter((s) => !ended.includes(s))).toEqual([]);
});
