// A routed request checked against its operation in specs/ before any handler runs: its body parsed
// as JSON (415 for another type), its path and query parameters and its body validated (422), and
// what the open schemas let through noted (request-violations.ts), refused too in strict mode. Each
// operation's validators are compiled once.
import type { IncomingMessage } from 'node:http';
import { contract, type Api, type Operation, type Violation } from '../../specs/contract.ts';
import { ApiError, type ValidationIssue, violationIssues } from './errors.ts';
import { queryViolations, requestViolationCheck, strictIssues, type RequestViolation, type RequestViolationCheck } from './request-violations.ts';

/**
 * The body of a request to `operation`, checked (the bytes as they came for an operation that takes
 * them `raw`, a multipart one): throws the ApiError that refuses the request. Its violations are
 * added to `noted` first, so that a refusal carries them too; `strict` refuses them.
 */
export function checkedBody(
  operation: Operation<Api>,
  headers: IncomingMessage['headers'],
  params: Record<string, string>,
  query: URLSearchParams,
  raw: Buffer,
  asRaw: boolean,
  noted: { violations?: RequestViolation[] },
  strict: boolean | undefined,
): unknown {
  const body = asRaw ? raw : parseJsonBody(headers, raw);
  const checks = requestChecks(operation);
  // Query parameters the contract does not document are marked (refused in strict mode); those it
  // documents and the simulator does not implement are refused (never ignored).
  let unhonoured: ValidationIssue[] | undefined;
  if (query.size > 0) {
    const asked = queryViolations(checks.queryParameters, query);
    if (asked.violations.length > 0) noted.violations = asked.violations;
    if (asked.refused.length > 0) unhonoured = asked.refused;
  }
  if (checks.violations && body !== undefined && !Buffer.isBuffer(body)) {
    const violations = checks.violations(body);
    if (violations.length > 0) noted.violations = [...(noted.violations ?? []), ...violations];
  }
  validateRequest(checks, params, query, body, strict ? noted.violations : undefined, unhonoured);
  return body;
}

/**
 * Refuses with 422 what the operation's schema refuses, before any handler runs: bad input is a
 * 4xx in the plane's error shape and reaches no state (ERROR-BAD-INPUT-CONTROL-PLANE,
 * ERROR-BAD-INPUT-PLATFORM, ERROR-BAD-INPUT-AGENT). An operation's own bad-input rule is named by
 * x-implements on its request schema. In strict mode the request's violations are refused with them.
 */
function validateRequest(
  checks: RequestChecks,
  params: Record<string, string>,
  query: URLSearchParams,
  body: unknown,
  refused: RequestViolation[] | undefined,
  unhonoured: ValidationIssue[] | undefined,
): void {
  // Filled only when something is wrong: a valid request allocates nothing here.
  let issues: ValidationIssue[] | undefined = unhonoured && [...unhonoured];
  for (const name in params) {
    const violations = checks.path.get(name)?.(params[name]);
    if (violations?.length) (issues ??= []).push(...violationIssues(['path', name], violations));
  }
  // The query string is read only when the operation documents query parameters.
  for (const parameter of checks.query) {
    const value = query.get(parameter.name);
    if (value === null) {
      if (parameter.required) (issues ??= []).push({ loc: ['query', parameter.name], msg: 'Field required', type: 'missing' });
      continue;
    }
    const violations = parameter.check?.(coerceQuery(value, parameter.schema));
    if (violations?.length) (issues ??= []).push(...violationIssues(['query', parameter.name], violations));
  }
  if (body === undefined) {
    if (checks.bodyRequired) (issues ??= []).push({ loc: ['body'], msg: 'a JSON body is required', type: 'missing' });
  } else if (!Buffer.isBuffer(body) && checks.body) {
    const violations = checks.body(body);
    if (violations.length > 0) (issues ??= []).push(...violationIssues(['body'], violations));
  }
  if (refused) (issues ??= []).push(...strictIssues(refused));
  if (issues) {
    const summary = issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    throw new ApiError(422, `Invalid request: ${summary}`, issues);
  }
}

type Check = (value: unknown) => Violation[];

/** What validateRequest checks of one operation, looked up once: its parameters' and body's validators. */
interface RequestChecks {
  path: Map<string, Check>;
  query: { name: string; required: boolean; schema: unknown; check?: Check }[];
  /** The query parameters the operation documents, as written (queryViolations). */
  queryParameters: NonNullable<Operation<Api>['document']['parameters']>;
  body?: Check;
  bodyRequired: boolean;
  /** What the body's open schemas let through (request-violations.ts), when they leave anything to check. */
  violations?: RequestViolationCheck;
}

const compiledChecks = new WeakMap<Operation<Api>, RequestChecks>();

function requestChecks(operation: Operation<Api>): RequestChecks {
  let checks = compiledChecks.get(operation);
  if (checks) return checks;
  const parameters = operation.document.parameters ?? [];
  const path = new Map<string, Check>();
  for (const p of parameters) {
    const check = p.in === 'path' ? contract().parameterValidator(operation, 'path', p.name) : undefined;
    if (check) path.set(p.name, check);
  }
  checks = {
    path,
    query: parameters
      .filter((p) => p.in === 'query')
      .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema, check: contract().parameterValidator(operation, 'query', p.name) })),
    queryParameters: parameters.filter((p) => p.in === 'query'),
    body: contract().requestBodyValidator(operation),
    bodyRequired: operation.document.requestBody?.required === true,
    violations: requestViolationCheck(operation),
  };
  compiledChecks.set(operation, checks);
  return checks;
}

function coerceQuery(value: string, schema: unknown): unknown {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * Bodies are JSON, accepted as application/json (or a +json type) and only so, as §4 says requests
 * with a body carry it: text/plain or no Content-Type is a 415 too. A request without a body needs
 * none. Multipart bodies arrive raw (ERROR-JSON-PAYLOADS-CONTROL-PLANE, ERROR-JSON-PAYLOADS-PLATFORM,
 * ERROR-JSON-PAYLOADS-AGENT).
 */
function parseJsonBody(headers: IncomingMessage['headers'], raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    const declared = type ? `Unsupported Content-Type '${type}'` : 'A request body without a Content-Type';
    throw new ApiError(415, `${declared}: send the body as application/json`);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new ApiError(422, `Invalid JSON in request body: ${(error as Error).message}`, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
}
