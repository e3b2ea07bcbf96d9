// How long each spec file took, written beside the report as durations.json so that a later run
// can split its shards by measured time (run --shard i/n --durations). Kept out of report.json:
// times change from run to run, and the same seed gives the same report.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DURATIONS_FILE = 'durations.json';

/** Milliseconds per spec file, keyed by its path under suites/ (agent-server/threads-create.spec.ts). */
export type Durations = Record<string, number>;

export function writeDurations(dir: string, durations: Durations): void {
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(dir, DURATIONS_FILE), `${JSON.stringify({ files: sorted }, null, 2)}\n`);
}

/** The durations of an earlier run: its durations.json, or the report folder holding it. */
export function readDurations(path: string): Durations {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, DURATIONS_FILE) : path;
  if (!existsSync(file)) throw new Error(`${file} does not exist (a run writes ${DURATIONS_FILE} into its --out folder)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  const files = (parsed as { files?: unknown }).files;
  if (typeof files !== 'object' || files === null || Object.values(files).some((ms) => typeof ms !== 'number' || !(ms >= 0)))
    throw new Error(`${file} is no ${DURATIONS_FILE} of this tool: it needs {"files": {"<spec file>": <ms>, …}}`);
  return files as Durations;
}

/** The durations of a run's shards together (each file ran in one shard; a file in several adds up). */
export function addDurations(all: Durations[]): Durations {
  const total: Durations = {};
  for (const durations of all) for (const [file, ms] of Object.entries(durations)) total[file] = (total[file] ?? 0) + ms;
  return total;
}
