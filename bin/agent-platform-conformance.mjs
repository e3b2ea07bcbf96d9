#!/usr/bin/env node
// In the clone, the CLI runs from its TypeScript sources through tsx, so a change needs no build
// and dist/ is never stale. An installed package ships no sources, only dist/ (npm run build, run by
// npm before it packs the package or installs it from git): Playwright compiles no TypeScript
// under node_modules, so there the CLI and the suites run as JavaScript.
import { existsSync } from 'node:fs';

const sources = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
