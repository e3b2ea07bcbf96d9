// The README's quickstarts, run as a reader runs them, so that they cannot rot: the simulator
// started with the README's command, its printed environment lines compared with the README's,
// then every block marked `<!-- quickstart: run -->` run in a shell holding those lines (sh with
// bash -e, js as an ES module from the repository root, where its imports resolve). Each must exit
// 0 and print the text of each of its `→` comments. The README's fixed ports are moved to free ones.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cliEnv, ROOT } from '../self-test/run-cli.ts';

const SECTION = '## Develop a client against the simulator';
/** Each block of the section follows a marker saying what the test does with it. */
const BLOCK = /(?:<!-- quickstart: ([^>]+?) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;

interface Block {
  marker: string | undefined;
  lang: string;
  code: string;
}

function quickstartBlocks(): Block[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${SECTION}\n`);
  expect(start, `README.md has a section '${SECTION}'`).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(BLOCK)].map(([, marker, lang, code]) => ({ marker, lang, code }));
}

/** Four consecutive ports free on 127.0.0.1, for the four planes `--base-port` places. */
async function freeBasePort(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let base = 20_000 + Math.floor(Math.random() * 30_000); ; base += 4) {
    if ((await Promise.all([0, 1, 2, 3].map((i) => free(base + i)))).every(Boolean)) return base;
  }
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], input: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, env: cliEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test("the README's quickstarts run against the simulator they start, and print what they say", async () => {
  const blocks = quickstartBlocks();
  expect(
    blocks.filter((b) => b.marker === undefined).map((b) => b.code),
    'every block of the section is marked',
  ).toEqual([]);
  const [simulator, ...others] = blocks.filter((b) => b.marker === 'simulator');
  const [environment] = blocks.filter((b) => b.marker === 'environment');
  expect(others, 'one simulator block').toEqual([]);
  expect(environment, 'an environment block').toBeDefined();
  const runnable = blocks.filter((b) => b.marker === 'run');
  expect(runnable.map((b) => b.lang).sort(), 'a curl block and one block per official JS client').toEqual(['js', 'js', 'sh']);

  // The README's ports, moved by the same offset onto free ones.
  const readmeBase = Number(/--base-port (\d+)/.exec(simulator.code)?.[1]);
  const base = await freeBasePort();
  const localize = (text: string) =>
    text
      .replace(`--base-port ${readmeBase}`, `--base-port ${base}`)
      .replace(/127\.0\.0\.1:(\d+)/g, (whole, port: string) =>
        Number(port) >= readmeBase && Number(port) < readmeBase + 4 ? `127.0.0.1:${base + Number(port) - readmeBase}` : whole,
      );

  const exports = localize(environment.code).split('\n');
  const variables = Object.fromEntries(exports.map((line) => /^export (\w+)=(.*)$/.exec(line)!.slice(1, 3)));

  // Its own process group: npx, and the simulator under it, stop together.
  const started = spawn('bash', ['-e', '-c', localize(simulator.code)], { cwd: ROOT, env: cliEnv(), detached: true });
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
          ? await run('bash', ['-e', '-o', 'pipefail'], `${exports.join('\n')}\n${localize(block.code)}`, {})
          : await run(process.execPath, ['--input-type=module'], localize(block.code), variables);
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
});
