// `npm run build`: the package as JavaScript in dist/, which the installed package runs (Playwright
// compiles no TypeScript under node_modules). npm runs it as `prepare`: before it packs or publishes
// the package, and when it installs the package from git. dist/ mirrors the source tree, and the data
// files the code reads by a path relative to itself (the contract's YAML and JSON, the simulator's
// fixtures, suites/untested-rules.yaml) are copied beside it, so those paths resolve as in the sources.
// Declarations stay only where an export's types reach them (tsc writes one for every file the
// exported modules import, most of which no exported type names).
// Plain JavaScript: a build from git needs Node and TypeScript only, not tsx and its esbuild binary.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { reached } from './import-graph.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
/** The folders whose data files the compiled code reads (every file there but TypeScript). */
const DATA = ['specs', 'suites', 'fixtures/platform'];
const require = createRequire(import.meta.url);
const ts = require('typescript');

rmSync(DIST, { recursive: true, force: true });
// The JavaScript file by file, with tsconfig.build.json's options, as tsc -p would write it, in about half
// the time: the typecheck is npm test's, not the build's. Every file is an ES module (package.json type:
// module), which a file compiled alone cannot look up, so it is said.
const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: fail });
if (config.errors.length > 0) fail(config.errors[0]);
const compilerOptions = { ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
for (const file of config.fileNames) {
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file, reportDiagnostics: true });
  if (diagnostics.length > 0) fail(diagnostics[0]);
  const out = join(DIST, relative(ROOT, file)).replace(/\.ts$/, '.js');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText);
}
// The exported types need the checker: tsc writes them.
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.types.json'], { cwd: ROOT, stdio: 'inherit' });
for (const folder of DATA) cpSync(join(ROOT, folder), join(DIST, folder), { recursive: true, filter: (source) => !source.endsWith('.ts') });
const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const typed = Object.values(exports).flatMap((target) => (target.types ? [join(ROOT, target.types)] : []));
const { files: named } = reached(typed);
for (const file of readdirSync(DIST, { recursive: true })) {
  const path = join(DIST, file);
  if (path.endsWith('.d.ts') && !named.has(path)) rmSync(path);
}

function fail(diagnostic) {
  const { file, start } = diagnostic;
  const at = file && start !== undefined ? file.getLineAndCharacterOfPosition(start) : undefined;
  const where = file ? ` (${relative(ROOT, file.fileName)}${at ? `:${at.line + 1}:${at.character + 1}` : ''})` : '';
  console.error(`build: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}${where}`);
  process.exit(1);
}
