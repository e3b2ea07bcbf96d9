// Commands timed as a user runs them: wall time from start to exit, output not shown.
import { spawnSync } from 'node:child_process';

const ROOT = new URL('..', import.meta.url).pathname;

export interface Timed {
  seconds: number;
  status: number | null;
}

/** A command's wall time, run in `cwd` (the repository by default). */
export function timed(command: string, args: string[], cwd = ROOT): Timed {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: 'ignore' });
  return { seconds: (performance.now() - started) / 1000, status: result.status };
}

/**
 * `bash .ci/run` on a fresh clone of the repository's HEAD, as CI runs it: its `npm ci` installs
 * into the clone (here it would replace the node_modules of this checkout). The clone is not timed.
 */
export function ciOnFreshClone(scratch: string): Timed {
  const clone = `${scratch}/ci-clone`;
  const cloned = spawnSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'ignore' });
  if (cloned.status !== 0) throw new Error(`git clone ${ROOT} failed (exit ${cloned.status})`);
  return timed('bash', ['.ci/run'], clone);
}
