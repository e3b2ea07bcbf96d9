// `npm run pack:simulator [-- <folder>]`: the in-process simulator as a package of its own,
// agent-platform-simulator, packed into <folder> (default: the current one). A client developer's
// tests import startSimulator and nothing of the harness, so this package holds only what
// dist/simulator/start-simulator.js reaches (its JavaScript, the declarations its types name, the
// contract's data and the workspace fixture it reads) and depends only on the packages that code
// imports, at the ranges the main package declares: no Playwright, fast-check or http-proxy. The
// main package keeps its `./simulator` export, so a harness user needs one install. Run after
// `npm run build`, whose dist/ it packs (the npm script does both).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { reached } from './import-graph.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const NAME = 'agent-platform-simulator';
const ENTRY = 'dist/simulator/start-simulator';
/** The data the simulator reads by a path relative to its code (the contract's YAML and JSON, the workspaces). */
const DATA = ['dist/specs', 'dist/fixtures/platform'];

const destination = resolve(process.argv[2] ?? '.');
const main = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const code = reached([join(ROOT, `${ENTRY}.js`)]);
const types = reached([join(ROOT, `${ENTRY}.d.ts`)]);
const dependencies = Object.fromEntries(
  [...code.packages, ...types.packages].sort().map((name) => {
    const range = main.dependencies[name];
    if (!range) throw new Error(`${ENTRY}.js imports ${name}, which package.json does not list among its dependencies`);
    return [name, range];
  }),
);

const stage = mkdtempSync(join(tmpdir(), `${NAME}-`));
try {
  for (const file of [...code.files, ...types.files]) {
    mkdirSync(dirname(join(stage, relative(ROOT, file))), { recursive: true });
    cpSync(file, join(stage, relative(ROOT, file)));
  }
  for (const folder of DATA)
    for (const file of readdirSync(join(ROOT, folder), { recursive: true }).map((f) => join(folder, f))) {
      if (/\.(?:ya?ml|json)$/.test(file)) cpSync(join(ROOT, file), join(stage, file), { recursive: true });
    }
  const manifest = {
    name: NAME,
    version: main.version,
    description: `The in-process simulator of ${main.name} (startSimulator), without the harness: ${main.description.toLowerCase()}`,
    type: 'module',
    license: main.license,
    exports: { '.': { types: `./${ENTRY}.d.ts`, default: `./${ENTRY}.js` }, './package.json': './package.json' },
    engines: main.engines,
    dependencies,
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(stage, 'README.md'),
    `# ${NAME}\n\n` +
      `The Agent Platform API simulator of \`${main.name}\`, to start in a client's own tests, without the\n` +
      `conformance harness (Playwright and the rest): \`import { startSimulator } from '${NAME}'\`. It is the module\n` +
      `\`${main.name}/simulator\` exports, built from the same sources; ${main.name}'s guide docs/clients.md, "Develop a\n` +
      'client against the simulator", shows how to use it. The `simulate` command, which starts it as a process, comes with\n' +
      `${main.name}.\n`,
  );
  mkdirSync(destination, { recursive: true });
  execFileSync('npm', ['pack', '--pack-destination', destination], { cwd: stage, stdio: ['ignore', 'inherit', 'inherit'] });
} finally {
  rmSync(stage, { recursive: true, force: true });
}
