// `npm run build`: the package as JavaScript in dist/, which the installed package runs (Playwright
// compiles no TypeScript under node_modules). npm runs it as `prepare`: before it packs or publishes
// the package, and when it installs the package from git. dist/ mirrors the source tree, and the data
// files the code reads by a path relative to itself (the contract's YAML and JSON, the simulator's
// fixtures, suites/untested-rules.yaml) are copied beside it, so those paths resolve as in the sources.
// Declarations stay only where an export's types reach them (tsc writes one for every file the
// exported modules import, most of which no exported type names).
// Plain JavaScript: a build from git needs Node and TypeScript only, not tsx and its esbuild binary.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { reached } from './import-graph.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
/** The folders whose data files the compiled code reads (every file there but TypeScript). */
const DATA = ['specs', 'suites', 'fixtures/platform'];

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
for (const config of ['tsconfig.build.json', 'tsconfig.types.json']) execFileSync(process.execPath, [tsc, '-p', config], { cwd: ROOT, stdio: 'inherit' });
for (const folder of DATA) cpSync(join(ROOT, folder), join(DIST, folder), { recursive: true, filter: (source) => !source.endsWith('.ts') });
const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const typed = Object.values(exports).flatMap((target) => (target.types ? [join(ROOT, target.types)] : []));
const { files: named } = reached(typed);
for (const file of readdirSync(DIST, { recursive: true })) {
  const path = join(DIST, file);
  if (path.endsWith('.d.ts') && !named.has(path)) rmSync(path);
}
