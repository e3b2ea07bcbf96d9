import { expect, test } from '@playwright/test';
import { createLog, isLogLevel, LOG_LEVELS, type LogLevel } from './log.ts';

/** What each level of log writes when told one message at every level. */
function written(level: LogLevel): { stdout: string[]; stderr: string[] } {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const log = createLog(level, { stdout: (line) => out.stdout.push(line), stderr: (line) => out.stderr.push(line) });
  for (const at of LOG_LEVELS) log[at](`${at} message`);
  return out;
}

test('a level shows itself and the levels above it; errors and warnings go to stderr, the rest to stdout', () => {
  expect(written('error')).toEqual({ stdout: [], stderr: ['[simulator] error: error message'] });
  expect(written('warn')).toEqual({ stdout: [], stderr: ['[simulator] error: error message', '[simulator] warn: warn message'] });
  expect(written('info')).toEqual({
    stdout: ['[simulator] info: info message'],
    stderr: ['[simulator] error: error message', '[simulator] warn: warn message'],
  });
  expect(written('debug').stdout).toEqual(['[simulator] info: info message', '[simulator] debug: debug message']);
});

test('isLogLevel knows the four levels and nothing else', () => {
  expect(LOG_LEVELS.filter(isLogLevel)).toEqual(['error', 'warn', 'info', 'debug']);
  expect(['', 'verbose', 'INFO', undefined, 3].filter(isLogLevel)).toEqual([]);
});

test('shows tells which levels a log writes', () => {
  const log = createLog('warn', { stdout: () => {}, stderr: () => {} });
  expect(LOG_LEVELS.filter((level) => log.shows(level))).toEqual(['error', 'warn']);
});
