// Where a run writes its report. A run writes into a fresh folder beside --out, and its files
// replace those of the earlier run in --out only once it has ended: a run that stops early, or
// never gets past its options, leaves the earlier report whole, and --out never holds the files
// of two runs (a new report.json beside an old exchanges.har).
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DURATIONS_FILE } from '../reports/durations.ts';
import { REPORT_FILES } from '../reports/write.ts';
import { UsageError } from './args.ts';

/** Everything a run may write into its folder; any other file there is the user's and stays. */
const RUN_FILES = [...Object.values(REPORT_FILES), 'exchanges.har', DURATIONS_FILE, 'test-results'];

/**
 * A fresh folder beside `out` (so that its files move into `out` by a rename), named after it; a
 * usage error when `out`, or the folder it goes in, cannot be written.
 */
export function stagingFolder(out: string): string {
  try {
    mkdirSync(dirname(out), { recursive: true });
    if (existsSync(out)) accessSync(out, constants.W_OK);
    return mkdtempSync(join(dirname(out), `.${basename(out)}.running-`));
  } catch (error) {
    throw new UsageError(`--out: cannot write to ${out}: ${(error as Error).message}`);
  }
}

/**
 * Moves the finished run's files from `staging` into `out`, after removing those an earlier run
 * left there that this one did not write; then removes `staging`. A staging folder with no
 * report.json (the command failed before writing one) replaces nothing: it is only removed.
 */
export function publish(staging: string, out: string): void {
  if (existsSync(join(staging, REPORT_FILES.json))) {
    mkdirSync(out, { recursive: true });
    const written = new Set(readdirSync(staging));
    for (const name of RUN_FILES) {
      // A folder (test-results) cannot be renamed over: an earlier one goes first.
      if (!written.has(name) || name === 'test-results') rmSync(join(out, name), { recursive: true, force: true });
    }
    for (const name of written) renameSync(join(staging, name), join(out, name));
  }
  rmSync(staging, { recursive: true, force: true });
}
