// What the simulator says about itself, by level. An error is the simulator's own fault (a
// request it answered 500, a stream that broke): a bug to report. Info is the simulated platform
// doing what the spec says, worth a client developer's eye: a webhook the receiver refused to
// the last attempt, a cron that could not start its run. The suites cause those on purpose, so
// they are not errors, and they go to stdout: stderr carries only what is wrong (warn, error).
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

export type Log = Record<LogLevel, (message: string) => void> & {
  /** Whether messages at `level` are written: a caller skips the work of one that is not (the request log, on every request). */
  shows(level: LogLevel): boolean;
};

interface Sinks {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

const PROCESS_SINKS: Sinks = { stdout: (line) => process.stdout.write(`${line}\n`), stderr: (line) => process.stderr.write(`${line}\n`) };

export function isLogLevel(value: unknown): value is LogLevel {
  return LOG_LEVELS.includes(value as LogLevel);
}

/** A log that writes the messages at `level` and above (error the highest), each line tagged with its level. */
export function createLog(level: LogLevel, sinks: Sinks = PROCESS_SINKS): Log {
  const shown = LOG_LEVELS.indexOf(level);
  const writer = (at: LogLevel) => {
    if (LOG_LEVELS.indexOf(at) > shown) return () => {};
    const sink = at === 'error' || at === 'warn' ? sinks.stderr : sinks.stdout;
    return (message: string) => sink(`[simulator] ${at}: ${message}`);
  };
  return {
    error: writer('error'),
    warn: writer('warn'),
    info: writer('info'),
    debug: writer('debug'),
    shows: (at) => LOG_LEVELS.indexOf(at) <= shown,
  };
}
