// `simulate` started in a child process as a user would start it, and what it prints read
// back: the URLs of its planes, its API keys, workspaces and bearer token. The project's tests
// use it as a target the harness knows only from a config file.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, cliEnv, ROOT } from './run-cli.ts';

export interface StandIn {
  planes: Record<string, string>;
  keys: Record<string, string>;
  workspaces: Record<string, string>;
  bearer: string;
  /** Everything it printed until it was ready. */
  out: string;
  /** The lines it printed since it was ready, read for its whole life (its request log, its warnings). */
  since: { stdout: string[]; stderr: string[] };
  /** Stops the simulator (as Ctrl-C would); resolves once it exited. */
  stop(): Promise<void>;
}

export async function startStandIn(args: string[], env: Record<string, string> = {}): Promise<StandIn> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'simulate', ...args], { cwd: ROOT, env: cliEnv(env) });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let out = '';
  let ready = false;
  const since = { stdout: [] as string[], stderr: [] as string[] };
  const lines = (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (ready) since.stdout.push(...lines(chunk));
      else out += chunk;
      if (!ready && out.includes('Ctrl-C to stop')) {
        ready = true;
        resolve();
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (ready) since.stderr.push(...lines(chunk));
      else out += chunk;
    });
    child.on('exit', (code) => reject(new Error(`simulate exited with ${code}:\n${out}`)));
  });
  const planes = Object.fromEntries(
    [...out.matchAll(/^\[simulator\] (agent-server|control-plane|platform-api|platform-api-eu)\s+(http\S+)$/gm)].map((m) => [m[1], m[2]]),
  );
  const keys = Object.fromEntries(
    [...out.matchAll(/^\[simulator\]\s+(\S+)\s+(primary|second-workspace|multi-workspace|org-scoped|eu-primary): /gm)].map((m) => [m[2], m[1]]),
  );
  const workspaces = Object.fromEntries([...out.matchAll(/(apc-\w+) \(([0-9a-f-]{36})\)/g)].map((m) => [m[1], m[2]]));
  const bearer = /Authorization: Bearer (\S+)/.exec(out)?.[1] ?? '';
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { planes, keys, workspaces, bearer, out, since, stop };
}

/** What a simulator printed of its credentials: its keys by role, workspace ids by name, and bearer token. */
export type PrintedCredentials = Pick<StandIn, 'keys' | 'workspaces' | 'bearer'>;

/**
 * A target config's `credentials` for a simulator started without capabilities, as a user of a real
 * service names them (the secrets in environment variables), and those variables' values.
 */
export function credentialsOf(printed: PrintedCredentials): { credentials: Record<string, unknown>; env: Record<string, string> } {
  const { 'apc-alpha': alpha, 'apc-beta': beta, 'apc-eu': eu } = printed.workspaces;
  return {
    credentials: {
      workspaces: [
        { id: alpha, name: 'apc-alpha' },
        { id: beta, name: 'apc-beta' },
        { id: eu, name: 'apc-eu' },
      ],
      api_keys: [
        { env: 'APC_KEY', role: 'primary', workspaces: [alpha], default_workspace: alpha },
        { env: 'APC_KEY_BETA', role: 'second-workspace', workspaces: [beta], default_workspace: beta },
        { env: 'APC_KEY_MULTI', role: 'multi-workspace', workspaces: [alpha, beta], default_workspace: alpha },
        { env: 'APC_KEY_ORG', role: 'org-scoped', workspaces: [alpha, beta] },
        // The EU platform API knows only accounts that signed up in the EU (§1).
        { env: 'APC_KEY_EU', role: 'eu-primary', workspaces: [eu], default_workspace: eu },
      ],
      bearer_tokens: [{ env: 'APC_BEARER', role: 'primary', workspaces: [alpha, beta], default_workspace: alpha }],
    },
    env: {
      APC_KEY: printed.keys.primary!,
      APC_KEY_BETA: printed.keys['second-workspace']!,
      APC_KEY_MULTI: printed.keys['multi-workspace']!,
      APC_KEY_ORG: printed.keys['org-scoped']!,
      APC_KEY_EU: printed.keys['eu-primary']!,
      APC_BEARER: printed.bearer,
    },
  };
}
