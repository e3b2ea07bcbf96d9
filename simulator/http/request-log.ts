// The request log: one line per request a plane answers, `POST /threads 200 1.3 ms`, at info (the
// default level of `simulate`). A request with violations is logged at warn, with them, so that a
// quieter log (--log-level warn) still shows what a client sent wrong.
import type { Log } from '../log.ts';
import type { RequestViolation } from './request-violations.ts';

export interface LoggedRequest {
  method: string;
  path: string;
  /** The answer's status; `reset` for a connection a fault closed with no answer. */
  status: number | 'reset';
  /** From the request's arrival to its answer's head (a stream's first byte, not its end). */
  ms: number;
  violations?: RequestViolation[];
}

/** The level a request is logged at: warn when it had violations. */
export function requestLevel(violations: RequestViolation[] | undefined): 'info' | 'warn' {
  return violations?.length ? 'warn' : 'info';
}

export function logRequest(log: Log, request: LoggedRequest): void {
  const { method, path, status, ms, violations } = request;
  const line = `${method} ${path} ${status} ${ms.toFixed(1)} ms`;
  const level = requestLevel(violations);
  log[level](violations?.length ? `${line}; request violations: ${violations.map((v) => `${v.at} ${v.message}`).join('; ')}` : line);
}
