// The client quickstarts of docs/clients.md, the guide the README links, run as a reader runs them,
// outside this clone, so that they cannot rot: in a project where only the packages that the guide's
// install lines name are installed, as a reader installs them. What each block's marker says is done
// with it:
//   install                  its `npm install` line is run as written, a tarball packed here in place of each
//                            package this repository builds; each other package names a caret range that the
//                            version this clone tests is in. Installs and file blocks run in the guide's
//                            order, so a file block runs with only the packages installed above it
//   file <name>, run <cmd>   saved as <name> and run with <cmd>: it must exit 0 with all its tests passed
//   simulator                started (with its fixed ports moved onto free ones) until it prints its URLs
//   environment              its lines must be those the simulator prints
//   run                      run in a shell holding those lines (sh with bash -e, js as an ES module):
//                            it must exit 0 and print the text of each of its `→` comments
//   not run (…)              only checked to name the variables of the environment block
import { expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cliEnv, ROOT, runCommand } from '../self-test/run-cli.ts';
import { stripVTControlCharacters } from 'node:util';

const GUIDE = 'docs/clients.md';
/** Each block of the guide follows a marker saying what the test does with it. */
const BLOCK = /(?:<!-- quickstart: ([^>]+?) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;

interface Block {
  marker: string | undefined;
  lang: string;
  code: string;
}

function quickstartBlocks(): Block[] {
  const guide = readFileSync(join(ROOT, GUIDE), 'utf8');
  return [...guide.matchAll(BLOCK)].map(([, marker, lang, code]) => ({ marker, lang, code }));
}

const run = (command: string, args: string[], cwd: string, input = '', env: Record<string, string> = {}) => runCommand(command, args, { cwd, input, env });

/**
 * Four consecutive ports free on 127.0.0.1, for the four planes `--base-port` places. Below the
 * range the kernel hands out to outgoing connections: a port free when checked may be taken by one
 * before `simulate` listens on it (the other tests open thousands), and then the block fails with
 * EADDRINUSE.
 */
export async function freeBasePort(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  const ephemeral = Number(/^(\d+)/.exec(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'))?.[1] ?? 32_768);
  const floor = 10_000;
  const span = Math.max(ephemeral - floor - 4, 1_000);
  for (let base = floor + Math.floor(Math.random() * span); ; base = base + 4 < floor + span ? base + 4 : floor) {
    if ((await Promise.all([0, 1, 2, 3].map((i) => free(base + i)))).every(Boolean)) return base;
  }
}

/** The version of `name` this clone has installed: the one its tests drive. */
function lockedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Whether `version` is in the caret range `^x.y.z` (npm's meaning: the same major, or the same minor below 1.0). */
export function inCaretRange(range: string, version: string): boolean {
  const floor = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range)?.slice(1).map(Number);
  const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)?.slice(1).map(Number);
  if (!floor || !parts) return false;
  const atLeast = parts[0] - floor[0] || parts[1] - floor[1] || parts[2] - floor[2];
  return atLeast >= 0 && parts[0] === floor[0] && (floor[0] > 0 || parts[1] === floor[1]);
}

/**
 * Runs every block of the client guide in `project`, an empty project: `tarballs` (a
 * package's name to its packed tarball) are installed in place of those packages wherever an install
 * line names them.
 */
export async function checkQuickstarts(project: string, tarballs: Record<string, string>): Promise<void> {
  const blocks = quickstartBlocks();
  expect(
    blocks.filter((b) => b.marker === undefined).map((b) => b.code),
    `every block of ${GUIDE} is marked`,
  ).toEqual([]);

  for (const block of blocks) {
    if (block.marker === 'install') await install(block, project, tarballs);
    const file = /^file (\S+), run (.+)$/.exec(block.marker ?? '');
    if (!file) continue;
    const [, name, command] = file;
    writeFileSync(join(project, name), `${block.code}\n`);
    const ran = await run('bash', ['-e', '-c', command], project);
    const said = `${name} (${command}):\n${ran.stdout}\n${ran.stderr}`;
    expect(ran.code, said).toBe(0);
    // node:test says `# pass n`, vitest `Tests  n passed`: every test of the file ran and passed.
    const tests = [...block.code.matchAll(/^test\(/gm)].length;
    expect(tests, `${name} has tests`).toBeGreaterThan(0);
    // Runners colour their summaries.
    const plain = stripVTControlCharacters(`${ran.stdout}${ran.stderr}`);
    expect(plain, said).toMatch(new RegExp(`# pass ${tests}\\b|Tests\\s+${tests} passed`));
  }

  await checkProcessBlocks(blocks, project);
}

/** An install block's line, run as written but for the packages of `tarballs`. */
async function install(block: Block, project: string, tarballs: Record<string, string>): Promise<void> {
  const packages = /^npm install --save-dev ((?:[@\w/.^-]+ ?)+)$/.exec(block.code)?.[1].trim().split(' ');
  expect(packages, `an install block is one npm install line: ${block.code}`).toBeDefined();
  for (const spec of packages!.filter((p) => !tarballs[p])) {
    const [, name, range] = /^(@?[^@]+)@(.+)$/.exec(spec) ?? [];
    expect(range, `${spec}: the guide names the version range it was tested with`).toBeDefined();
    expect(inCaretRange(range, lockedVersion(name)), `${spec} holds ${name}@${lockedVersion(name)}, the version this clone tests`).toBe(true);
  }
  const specs = packages!.map((spec) => tarballs[spec] ?? spec);
  // The local npm cache serves them: seconds, not a download.
  const installed = await run('npm', ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', ...specs], project);
  expect(installed.code, installed.stderr).toBe(0);
}

/** The blocks that start `simulate` and drive it from a shell holding its environment lines. */
async function checkProcessBlocks(blocks: Block[], project: string): Promise<void> {
  const [simulator, ...others] = blocks.filter((b) => b.marker === 'simulator');
  const [environment] = blocks.filter((b) => b.marker === 'environment');
  expect(others, 'one simulator block').toEqual([]);
  expect(environment, 'an environment block').toBeDefined();
  const runnable = blocks.filter((b) => b.marker === 'run');
  expect(runnable.map((b) => b.lang).sort(), 'a curl block and one block per official JS client').toEqual(['js', 'js', 'sh']);

  // The guide's ports, moved by the same offset onto free ones.
  const guideBase = Number(/--base-port (\d+)/.exec(simulator.code)?.[1]);
  const base = await freeBasePort();
  const localize = (text: string) =>
    text
      .replace(`--base-port ${guideBase}`, `--base-port ${base}`)
      .replace(/127\.0\.0\.1:(\d+)/g, (whole, port: string) =>
        Number(port) >= guideBase && Number(port) < guideBase + 4 ? `127.0.0.1:${base + Number(port) - guideBase}` : whole,
      );

  const exports = localize(environment.code).split('\n');
  const variables = Object.fromEntries(exports.map((line) => /^export (\w+)=(.*)$/.exec(line)!.slice(1, 3)));

  // Its own process group: npx, and the simulator under it, stop together. Its output is read to the
  // end, so that its log lines never fill the pipe.
  const started = spawn('bash', ['-e', '-c', localize(simulator.code)], { cwd: project, env: cliEnv(), detached: true });
  let printed = '';
  try {
    await new Promise<void>((resolve, reject) => {
      started.stdout.on('data', (chunk) => {
        printed += chunk;
        if (printed.includes('Ctrl-C to stop')) resolve();
      });
      started.stderr.on('data', (chunk) => (printed += chunk));
      started.on('exit', (code) => reject(new Error(`the simulator block exited with ${code}:\n${printed}`)));
    });

    expect(
      printed.split('\n').filter((line) => /^[A-Z_]+=/.test(line)),
      'the environment lines are those the simulator prints',
    ).toEqual(exports.map((line) => line.replace(/^export /, '')));

    for (const block of runnable) {
      const ran =
        block.lang === 'sh'
          ? await run('bash', ['-e', '-o', 'pipefail'], project, `${exports.join('\n')}\n${localize(block.code)}`)
          : await run(process.execPath, ['--input-type=module'], project, localize(block.code), variables);
      const said = `${block.lang} block:\n${block.code}\nstdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`;
      expect(ran.code, said).toBe(0);
      const expected = [...block.code.matchAll(/^\s*(?:#|\/\/) → (.+)$/gm)].map((m) => m[1]);
      expect(expected.length, `${block.lang} block: says what it prints`).toBeGreaterThan(0);
      for (const text of expected) expect(ran.stdout, said).toContain(text);
    }
  } finally {
    if (started.exitCode === null) process.kill(-started.pid!, 'SIGTERM');
  }

  // The blocks not run (no Python clients here) name only the variables of the environment block.
  const named = new Set(Object.keys(variables));
  for (const block of blocks.filter((b) => b.marker?.startsWith('not run'))) {
    const used = [...block.code.matchAll(/\b(?:LANGSMITH|LANGGRAPH|LANGCHAIN)_[A-Z_]+/g)].map((m) => m[0]);
    expect(used.length, `${block.lang} block names the environment variables`).toBeGreaterThan(0);
    expect(
      used.filter((name) => !named.has(name)),
      `${block.lang} block`,
    ).toEqual([]);
  }
}
