// What every command shares: its name, exit codes, and option parsing that turns a
// mistyped option into a usage error (exit 2) instead of a stack trace.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest } from '../specs/suggest.ts';
import { OptionError, positive, whole } from '../harness/conformance-options.ts';
import { TOOL } from '../harness/tool.ts';

export const NAME = TOOL.name;
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * ok: no MUST rule failed; failed: a MUST rule failed, or a verdict differs from the
 * expectations or the baseline; usage: a usage or target error, never a verdict; incomplete:
 * the run reached --max-duration (a partial report); interrupted: SIGINT or SIGTERM stopped it
 * (a partial report), as 128 + SIGINT.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, incomplete: 3, interrupted: 130 } as const;

export class UsageError extends Error {}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export function parse(args: string[], options: ParseArgsConfig['options']): Values {
  return parseWithPositionals(args, options, 0).values;
}

/** Options and at least `minimum` positional arguments (none allowed when it is 0). */
export function parseWithPositionals(args: string[], options: ParseArgsConfig['options'], minimum: number): { values: Values; positionals: string[] } {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: minimum > 0, strict: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (error) {
    // A mistyped option: the known one it is closest to.
    const given = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'--([^'=]+)'/.exec((error as Error).message)?.[1] : undefined;
    const guess = given && closest(given, [...Object.keys(options ?? {}), 'help']);
    throw new UsageError(`${(error as Error).message}${guess ? `; did you mean '--${guess}'?` : ''}`);
  }
  if (!parsed.values.help && parsed.positionals.length < minimum)
    throw new UsageError(`expected at least ${minimum} argument${minimum === 1 ? '' : 's'}, got ${parsed.positionals.length}`);
  return parsed;
}

/** A whole number in [min, max] from an option, or a usage error naming it. */
export function integerOption(values: Values, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  return asUsage(() => whole(min, max)(values[name], `--${name}`));
}

/** A positive number from an option, or a usage error naming it. */
export function positiveOption(values: Values, name: string): number | undefined {
  return asUsage(() => positive(values[name], `--${name}`));
}

/** The value `read` answers; the option it refused, as a usage error (exit 2). */
function asUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof OptionError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Makes sure `folder` exists and can be written (it is created if need be), so that an output
 * that cannot be written is a usage error before any work, not a crash after it.
 */
export function writableFolder(folder: string, option: string): void {
  try {
    mkdirSync(folder, { recursive: true });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new UsageError(`${option}: cannot write to ${folder}: ${(error as Error).message}`);
  }
}

/** Resolves on the first SIGINT or SIGTERM, with its name. */
export function untilSignal(): Promise<string> {
  return untilStopped({ outliveParent: true });
}

/** How often a command that serves until stopped looks whether the process that started it is still there (real ms). */
const PARENT_CHECK_MS = 1_000;

/**
 * Resolves on the first SIGINT or SIGTERM, with its name; unless `outliveParent`, also once the
 * process that started this one has ended, with a phrase that says so. A parent that ends sends
 * its children nothing: npx stopped by SIGTERM, or a test runner that crashed, leaves the child
 * re-parented (to init or a subreaper) and still holding its ports. The child can only look, and
 * on POSIX its process.ppid then changes. Looking costs one system call a second; the timer is
 * unref'd so that it never keeps the process alive by itself.
 */
export function untilStopped({ outliveParent }: { outliveParent: boolean }): Promise<string> {
  return new Promise((resolve) => {
    const parent = process.ppid;
    const stop = (why: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      clearInterval(watch);
      resolve(why);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const watch = outliveParent
      ? undefined
      : setInterval(() => {
          if (process.ppid === parent) return;
          stop(`the process that started it (pid ${parent}) ended`);
        }, PARENT_CHECK_MS).unref();
  });
}
