// The servers the bench measures, each in a process of its own and started the way a user
// starts it, so that no server shares the load generator's event loop or cores unfairly.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const ROOT = new URL('..', import.meta.url).pathname;
export const CLI = `${ROOT}bin/agent-platform-conformance.mjs`;

export interface Server {
  name: string;
  child: ChildProcess;
  /** Every line the process printed so far. */
  lines: string[];
  /** The process's resident set size, in bytes (Linux /proc). */
  rss(): number;
  /** The CPU time the process has used so far, user and system, in seconds (Linux /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` and resolves once a line matches `ready`. Output is read line by line
 * for the whole life of the process, so that a chatty server never blocks on a full pipe.
 */
export async function startProcess(name: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${lines.join('\n')}`)), 60_000);
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (lines.length > 1000) lines.splice(0, lines.length - 1000);
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
    void exited.then(() => reject(new Error(`${name} exited before it was ready:\n${lines.join('\n')}`)));
  });
  return {
    name,
    child,
    lines,
    rss: () => rssOf(child.pid!),
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * `simulate` with the bench's seed unless told another, ready once it prints its URLs and keys. On
 * the virtual clock, as the embedded target: the floor replays a run made on it, and a run's time is
 * no load. At --log-level warn: no request log line per request, so the rows measure the engine, not the log.
 */
export const simulate = (extra: string[] = [], seed = 'bench') =>
  startProcess('simulate', [CLI, 'simulate', '--seed', seed, '--clock', 'virtual', '--log-level', 'warn', ...extra], /Ctrl-C to stop/);

/** The first http URL in the line that matches `pattern`. */
export function urlIn(server: Server, pattern: RegExp): string {
  const line = server.lines.find((l) => pattern.test(l));
  const url = line?.match(/https?:\/\/[^\s]+/)?.[0];
  if (!url) throw new Error(`${server.name}: no URL printed for ${pattern}:\n${server.lines.join('\n')}`);
  return url;
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(status.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1] ?? Number.NaN);
  return kb * 1024;
}

/**
 * The fields of /proc/<pid>/stat after the command name, from the process state on (field 3). The
 * name, in parentheses, may hold spaces and parentheses itself: the fields start after its last ')'.
 */
export function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 1/100 s (Linux's USER_HZ). */
function cpuSecondsOf(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
