#!/usr/bin/env node
// In the clone, the CLI runs from its TypeScript sources through tsx, so a change needs no build
// and dist/ is never stale. An installed package ships no sources, only dist/ (npm run build, run by
// npm before it packs the package or installs it from git): Playwright compiles no TypeScript
// under node_modules, so there the CLI and the suites run as JavaScript.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1 and later keep V8's compiled code on disk. Every process of a run then skips compiling
// Playwright's bundles and ours again, about a tenth of a second each: this CLI, and Playwright's
// runner and workers, which inherit the cache through NODE_COMPILE_CACHE.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
const compileCache = module.enableCompileCache?.();
if (compileCache?.directory) process.env.NODE_COMPILE_CACHE ??= compileCache.directory;
// Before 22.1 (Node 20), the CommonJS files of node_modules (Playwright's bundles among them) get V8's code
// cache from v8-code-cache.cjs, in this process and, through NODE_OPTIONS, in Playwright's runner and workers.
if (!compileCache)
  module
    .createRequire(import.meta.url)('./v8-code-cache.cjs')
    .enable();

const sources = new URL('../cli/main.ts', import.meta.url);
const built = new URL('../dist/cli/main.js', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else if (existsSync(built)) {
  ({ main } = await import(built.href));
} else {
  // A git install whose build npm did not run: npm 12 runs a git dependency's prepare script only when allowed.
  console.error(
    'agent-platform-conformance: this installation has no dist/: npm did not run its build (prepare).\n' +
      'From git, allow it first: npm approve-scripts agent-platform-conformance, then npm rebuild agent-platform-conformance; or install a packed tarball.',
  );
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
