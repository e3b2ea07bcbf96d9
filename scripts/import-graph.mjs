// The files of dist/ that an entry reaches through its relative imports, and the packages it imports:
// what a package built from dist/ must ship (the JavaScript an export runs, the declarations its types
// name) and depend on. Read from the compiled files, so it is what runs, not what the sources say.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `import … from 'x'`, `export … from 'x'`, `import 'x'`, `import('x')`, `import("x")` (a declaration's inline type). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** The file a relative specifier names in dist/: `.js` for code, `.d.ts` for declarations (which keep the sources' `.ts`). */
function fileOf(from, specifier, declarations) {
  const path = resolve(dirname(from), specifier);
  const candidates = declarations ? [path.replace(/\.(?:js|ts)$/, '.d.ts')] : [path.replace(/\.ts$/, '.js'), path];
  const file = candidates.find((candidate) => existsSync(candidate));
  if (!file) throw new Error(`${from} imports ${specifier}, which dist/ does not have`);
  return file;
}

/**
 * The files `entries` (absolute paths of .js or .d.ts files) reach, themselves included, and the
 * packages they import (by name; node: modules left out).
 */
export function reached(entries) {
  const files = new Set();
  const packages = new Set();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop();
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (specifier.startsWith('.')) pending.push(fileOf(file, specifier, file.endsWith('.d.ts')));
      else if (!specifier.startsWith('node:'))
        packages.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  }
  return { files, packages };
}
