// Shards balanced by measured time: `run --shard i/n --durations <earlier run>` splits the spec
// files into n shares of about equal duration, where Playwright's own --shard splits by test count
// (two shards of one run took 40 s and 118 s). Every shard computes the same split from the same
// inputs: the files in name order, each placed in turn, longest first, in the share with the least
// time so far (the lowest-numbered on a tie).
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Durations } from '../reports/durations.ts';

/**
 * The spec files of the given planes, at any depth, as paths under suites/
 * (agent-server/threads-create.spec.ts, agent-server/model/threads-and-runs.spec.ts), in name order.
 * `ext` is the suites' own: .ts in the clone, .js in the installed package.
 */
export function specFiles(suitesDir: string, planes: readonly string[], ext: string): string[] {
  return planes
    .flatMap((plane) =>
      readdirSync(join(suitesDir, plane), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith(`.spec${ext}`))
        .map((name) => `${plane}/${name.split(sep).join('/')}`),
    )
    .sort();
}

/**
 * The n shares of `files`, each a list of files in name order. A file the durations do not know
 * (new since that run) counts as their median, so it lands where there is room.
 */
export function balancedShares(files: readonly string[], durations: Durations, n: number): string[][] {
  const known = files
    .map((f) => durations[f])
    .filter((ms): ms is number => ms !== undefined)
    .sort((a, b) => a - b);
  const median = known.length === 0 ? 1 : known[Math.floor(known.length / 2)];
  const weighed = [...new Set(files)].map((file) => ({ file, ms: durations[file] ?? median }));
  weighed.sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file));
  const shares = Array.from({ length: n }, () => ({ files: [] as string[], ms: 0 }));
  for (const { file, ms } of weighed) {
    const least = shares.reduce((best, share) => (share.ms < best.ms ? share : best));
    least.files.push(file);
    least.ms += ms;
  }
  return shares.map((share) => share.files.sort());
}

/** A share as a Playwright test list: whole files, one per line (`[plane] › file`). */
export function testListOf(files: readonly string[]): string {
  return files.map((file) => `[${file.split('/')[0]}] › ${file}\n`).join('');
}
