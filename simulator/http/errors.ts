// One typed error for every refusal the simulator makes. Handlers and state modules
// throw it; the server renders it in the plane's documented error shape.
import type { Violation } from '../../specs/contract.ts';

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A schema's violations as validation issues under `prefix`; a missing field is named in its location, as FastAPI does (§2.2). */
export function violationIssues(prefix: (string | number)[], violations: Violation[]): ValidationIssue[] {
  return violations.map((v) => ({
    loc: [...prefix, ...pointerSegments(v.at), ...(v.missing === undefined ? [] : [v.missing])],
    msg: v.message,
    type: v.missing === undefined ? 'value_error' : 'missing',
  }));
}

/** A JSON pointer's segments, as FastAPI writes a location: `/a/0` is ['a', 0]. */
export function pointerSegments(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues?: ValidationIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    // A refusal is an answer, not a fault: it is rendered, never traced. A rate limit refuses
    // thousands a second, and a stack for each was a twentieth of the simulator's time.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

// 404 is the simulator's status for unknown ids on every plane
// (ERROR-UNKNOWN-ID-STATUS-CP, ERROR-UNKNOWN-ID-STATUS-PLATFORM, ERROR-UNKNOWN-ID-STATUS-AGENT).
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);
export const unprocessable = (message: string, issues?: ValidationIssue[]) => new ApiError(422, message, issues);

/**
 * How a plane writes error bodies. The agent server answers `{"detail": "<message>"}` as the
 * reference Python server does; the control plane and platform API are FastAPI services whose
 * validation errors are the §2.2 list form `{"detail": [{loc, msg, type}]}` (ERROR-SHAPE-AGENT,
 * ERROR-SHAPE-CONTROL-PLANE, ERROR-SHAPE-PLATFORM, ERROR-VALIDATION-DETAIL, ERROR-422-AUTHN).
 */
export type ErrorStyle = 'detail-string' | 'fastapi';

export function errorBody(error: ApiError, style: ErrorStyle): unknown {
  if (style === 'fastapi' && error.status === 422) {
    return { detail: error.issues ?? [{ loc: ['body'], msg: error.message, type: 'value_error' }] };
  }
  return { detail: error.message };
}

/** Runs `action` and answers the ApiError it refused with, if any; any other throw goes on. */
export function refusalOf(action: () => unknown): ApiError | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  return undefined;
}

/** As refusalOf, for an action that refuses through a rejected promise. */
export async function awaitedRefusalOf(action: () => unknown): Promise<ApiError | undefined> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  return undefined;
}
