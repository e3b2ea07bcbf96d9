import { expect, test } from '@playwright/test';
import { createLog, type LogLevel } from '../log.ts';
import { logRequest, type LoggedRequest } from './request-log.ts';

const TYPO = { at: '/inptu', type: 'extra_forbidden' as const, message: "unknown field 'inptu': did you mean 'input'?" };

function logged(level: LogLevel, request: LoggedRequest): { stdout: string[]; stderr: string[] } {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  logRequest(createLog(level, { stdout: (line) => out.stdout.push(line), stderr: (line) => out.stderr.push(line) }), request);
  return out;
}

test('a request is one info line: method, path, status, milliseconds', () => {
  expect(logged('info', { method: 'GET', path: '/threads/t1', status: 404, ms: 1.234 })).toEqual({
    stdout: ['[simulator] info: GET /threads/t1 404 1.2 ms'],
    stderr: [],
  });
  expect(logged('info', { method: 'POST', path: '/threads', status: 'reset', ms: 0 }).stdout).toEqual(['[simulator] info: POST /threads reset 0.0 ms']);
});

test('a request with violations is a warning that names them, so that --log-level warn still shows it', () => {
  const request: LoggedRequest = {
    method: 'POST',
    path: '/runs/wait',
    status: 200,
    ms: 3,
    violations: [TYPO, { ...TYPO, at: '/x', message: "unknown field 'x'" }],
  };
  const line = "[simulator] warn: POST /runs/wait 200 3.0 ms; request violations: /inptu unknown field 'inptu': did you mean 'input'?; /x unknown field 'x'";
  expect(logged('warn', request)).toEqual({ stdout: [], stderr: [line] });
  expect(logged('warn', { method: 'GET', path: '/ok', status: 200, ms: 1 })).toEqual({ stdout: [], stderr: [] });
  expect(logged('error', request)).toEqual({ stdout: [], stderr: [] });
});
