// Small named checks shared by the suites. Each failure says what was received against
// what is documented, and names the exchange that shows it.
import { expect } from '@playwright/test';
import { contract, type Plane } from '../../specs/contract.ts';
import type { ApiResponse } from '../client.ts';
import { skipForPrecondition } from './attribution.ts';

/**
 * The rules a failed step of `res`'s operation would break (MUST and SHOULD rules about the
 * operation): a precondition on it is explained when one of them failed in the same run. A step
 * through an operation the spec does not show is explained by the rule that says the service
 * serves it (its `x-rule`): a target that serves no such read leaves the test's rule not judged.
 */
export function rulesOfStep(res: Pick<ApiResponse, 'plane' | 'operation'>): string[] {
  if (!res.plane || !res.operation) return [];
  const operation = contract().operation(res.plane, res.operation);
  if (operation.notShown && operation.document['x-rule']) return [operation.document['x-rule']];
  return contract()
    .rules.filter((r) => r.plane === res.plane && r.level !== 'unspecified' && r.operations?.includes(res.operation!))
    .map((r) => r.id);
}

/** The response status is the expected one (a number, a list, or a class like '2xx'). */
export function expectStatus(res: ApiResponse, expected: number | number[] | '2xx' | '4xx'): void {
  const ok =
    expected === '2xx'
      ? res.status >= 200 && res.status < 300
      : expected === '4xx'
        ? res.status >= 400 && res.status < 500
        : Array.isArray(expected)
          ? expected.includes(res.status)
          : res.status === expected;
  expect(ok, res.describe(`expected status ${JSON.stringify(expected)}`)).toBe(true);
}

/** The JSON body matches a documented schema of specs/openapi. */
export function expectSchema(res: ApiResponse, plane: Plane, schema: string, value: unknown = res.json): void {
  const violations = contract().validateSchema(plane, schema, value);
  const listed = violations.map((v) => `${v.at || '(body)'} ${v.message}`).join('; ');
  expect(violations, res.describe(`expected a ${schema} (${plane}); violations: ${listed}`)).toEqual([]);
}

/**
 * A refusal, as far as a MUST rule states one: the status (a 4xx unless the spec names one),
 * never a 5xx. The body is judged only where the spec shows it; its shape is a SHOULD rule of its
 * own (ERROR-SHAPE-*), checked by expectJsonError.
 */
export function expectRefused(res: ApiResponse, status: number | number[] | '4xx' = '4xx'): void {
  expectStatus(res, status);
}

/** A refusal: a 4xx (never a 5xx) whose body is a JSON object saying what went wrong (the plane's SHOULD error shape). */
export function expectJsonError(res: ApiResponse, status: number | number[] | '4xx' = '4xx'): void {
  expectStatus(res, status);
  expect(res.headers['content-type'] ?? '', res.describe('expected a JSON error body')).toMatch(/json/i);
  const body = res.json as Record<string, unknown> | undefined;
  expect(typeof body === 'object' && body !== null && !Array.isArray(body), res.describe('expected a JSON object error body')).toBe(true);
  const said = body?.detail ?? body?.error ?? body?.message;
  expect(said !== undefined && said !== '', res.describe('expected the error body to say what went wrong (detail, error or message)')).toBe(true);
}

/**
 * A step the test needs but does not judge (never the request its rule is about): when it fails,
 * the test is skipped as a failed precondition, naming the rules whose failure explains it (by
 * default the rules of the step's operation), so only the rule actually broken fails.
 */
export function precondition(res: ApiResponse, what: string, explainedBy: readonly string[] = rulesOfStep(res)): void {
  if (res.status >= 200 && res.status < 300) return;
  skipForPrecondition(`precondition failed: ${what}: ${res.describe()}${notShownHint(res)}`, explainedBy);
}

/** What a refused step through a path the spec does not show says: the rule has no other evidence, and how to declare it. */
function notShownHint(res: ApiResponse): string {
  const operation = res.plane && res.operation ? contract().operation(res.plane, res.operation) : undefined;
  if (!operation?.notShown || ![404, 405, 501].includes(res.status)) return '';
  return ` (${operation.method} ${operation.path} is a path the spec does not show, the rule's only evidence here: a target that does not serve it says so in its config, not_shown_operations)`;
}

/**
 * The fields of a step's answer that the test goes on with. When one is missing or breaks its
 * documented schema, the test is skipped naming that field's rule (the schema property's x-rule) as
 * the failed precondition: one broken field fails its own rule, not every test that uses it.
 */
export function preconditionFields(res: ApiResponse, plane: Plane, schema: string, value: unknown, fields: string[], what: string): void {
  const document = contract().documents[plane].components?.schemas?.[schema] as
    | { required?: string[]; properties?: Record<string, { 'x-rule'?: string }> }
    | undefined;
  if (!document) throw new Error(`no schema ${schema} in the ${plane} document`);
  const record = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  for (const field of fields) {
    const property = document.properties?.[field];
    const rule = property?.['x-rule'] ?? schema;
    const broken = !(field in record)
      ? 'is missing'
      : contract()
          .runInline(`precondition:${plane}:${schema}:${field}`, plane, property ?? {}, record[field])
          .map((v) => v.message)
          .join('; ');
    if (broken) skipForPrecondition(`precondition failed: ${rule}: ${what}: ${field} ${broken}: ${res.describe()}`, [rule]);
  }
}

/**
 * The JSON array a judged request answers (the list or search a rule is about): a refusal, or a
 * body that is not an array (of `length` items, when given), fails the test.
 */
export function expectArray<T>(res: ApiResponse<T[]>, what: string, length?: number): T[] {
  expectStatus(res, '2xx');
  expect(Array.isArray(res.json), res.describe(`${what}: expected a JSON array`)).toBe(true);
  if (length !== undefined) expect(res.json.length, res.describe(`${what}: expected ${length} items`)).toBe(length);
  return res.json;
}

/** A step that must answer a JSON array (a list or search) for the test to go on. */
export function preconditionArray<T>(res: ApiResponse<T[]>, what: string, length?: number, explainedBy: readonly string[] = rulesOfStep(res)): T[] {
  precondition(res, what, explainedBy);
  if (!Array.isArray(res.json)) skipForPrecondition(`precondition failed: ${what} did not answer an array: ${res.describe()}`, explainedBy);
  if (length !== undefined && res.json.length !== length) {
    skipForPrecondition(`precondition failed: ${what} answered ${res.json.length} items, not ${length}: ${res.describe()}`, explainedBy);
  }
  return res.json;
}
