// Which folder may use which, and how the suites and the harness reach a target. The folders are
// layers (LAYERS below): a module imports its own folder and the folders its row names, never one
// above it. The suites and the harness judge a target from the outside: they never import the
// simulator (simulator/), whose types they take from the contract (specs/types), and they reach its
// admin protocol (/__sim, specs/openapi/simulator-admin.yaml) through one client,
// harness/admin-client.ts, whose methods are the protocol's operations. A file that breaks
// this fails here, by name. Comments may mention the admin path; code may not spell it.
import { expect, test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { contract } from '../specs/contract.ts';
import { AdminClient } from '../harness/admin-client.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CHECKED = ['suites', 'harness'];
const ADMIN_PATH = '/__sim';
/** The one file of the suites and the harness that may name the admin path. */
const ADMIN_CLIENT = 'harness/admin-client.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a source imports, exports from, `import()`s or `require()`s, as written. */
function moduleSpecifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      const [first] = node.arguments;
      if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) found.push(first.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The lines on which code (a string, a template, a regular expression; not a comment) spells `text`. */
function literalLines(source: ts.SourceFile, text: string): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node)) {
      if (node.getText(source).includes(text)) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

function parse(path: string, text = readFileSync(path, 'utf8')): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
}

/**
 * Each top-level folder and the folders its modules may import, lowest layer first; a module's own
 * folder goes without saying. An import of a folder its row does not name is a climb, or a step
 * sideways between layers that know nothing of each other, and fails. A unit test beside a module
 * (`*.test.ts`) is of the tests layer, wherever it stands. Files at the root (the configs) are of none.
 */
const LAYERS = {
  /** The contract as data, and what every party shares: the protocols (specs/evidence-protocol.ts, the admin protocol), the seeded PRNG. */
  specs: [],
  /** A target like any other: the package exports it (./simulator) without the harness. */
  simulator: ['specs'],
  /** What runs the suites against any target, the simulator included, reached through its protocols alone. */
  harness: ['specs'],
  suites: ['specs', 'harness'],
  /** The verdicts, from what the harness recorded. */
  reports: ['specs', 'harness'],
  /** The commands; Playwright runs the suites, which no module imports. */
  cli: ['specs', 'simulator', 'harness', 'reports'],
  bin: ['cli'],
  /** The project's own tests, and every unit test beside a module. */
  tests: ['specs', 'simulator', 'harness', 'reports', 'cli'],
  /** The project's tools: they use the tests' targets (stand-ins, broken targets, mutations). */
  bench: ['specs', 'simulator', 'harness', 'reports', 'cli', 'tests'],
  scripts: ['specs', 'simulator', 'harness', 'reports', 'cli', 'tests'],
  /** Code that runs elsewhere (the fixture graph on a real agent server, a user's CI): nothing of ours. */
  fixtures: [],
  examples: [],
} satisfies Record<string, string[]>;
type Layer = keyof typeof LAYERS;

/** The layer a file (relative to the root, with /) is of, and the layer a relative specifier of it names; none outside the folders. */
function layerOf(file: string): Layer | undefined {
  if (/\.test\.ts$/.test(file)) return 'tests';
  const [top, ...rest] = file.split('/');
  return rest.length > 0 && top && Object.hasOwn(LAYERS, top) ? (top as Layer) : undefined;
}

/** Why the file at `from` (absolute) may not import `specifier`, or undefined when it may (a package, its own folder, a layer below). */
function climb(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const file = relative(ROOT, from).split(sep).join('/');
  const target = relative(ROOT, resolve(dirname(from), specifier))
    .split(sep)
    .join('/');
  const [own, to] = [layerOf(file), target.split('/')[0]];
  if (own === undefined || to === undefined || to === own || to === file.split('/')[0] || (LAYERS[own] as string[]).includes(to)) return undefined;
  return `${file} imports ${specifier}: ${own}/ may import ${LAYERS[own].join(', ') || 'none of the project'} (tests/layout.test.ts, LAYERS); move what both need down a layer`;
}

const files = CHECKED.flatMap((dir) => sourceFiles(join(ROOT, dir)));

test('every top-level folder with code has a layer, and the layers have no cycle', () => {
  const folders = readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'dist', 'test-results'].includes(e.name))
    .filter((e) => sourceFiles(join(ROOT, e.name)).length > 0)
    .map((e) => e.name);
  expect(
    folders.filter((folder) => !Object.hasOwn(LAYERS, folder)),
    'a new folder of code declares what it may import in LAYERS',
  ).toEqual([]);
  // Each layer names only layers declared before it: the table is an order, lowest first.
  const order = Object.keys(LAYERS);
  const upward = Object.entries(LAYERS).flatMap(([layer, below]) =>
    (below as string[]).filter((name) => !(order.indexOf(name) >= 0 && order.indexOf(name) < order.indexOf(layer))).map((name) => `${layer} → ${name}`),
  );
  expect(upward, 'a layer imports only layers listed before it').toEqual([]);
});

test('no module imports a folder above its own (LAYERS)', () => {
  const all = Object.keys(LAYERS).flatMap((layer) => (existsSync(join(ROOT, layer)) ? sourceFiles(join(ROOT, layer)) : []));
  expect(all.length).toBeGreaterThan(400);
  const offending = all.flatMap((file) => moduleSpecifiers(parse(file)).flatMap((specifier) => climb(file, specifier) ?? []));
  expect(offending, offending.join('\n')).toEqual([]);
  expect(
    [
      ['harness/tagged-rules.ts', '../reports/build.ts'],
      ['harness/x.ts', '../simulator/clock.ts'],
      ['harness/x.ts', '../suites/control-plane/deployments-steps.ts'],
      ['simulator/start-simulator.ts', '../harness/environment.ts'],
      ['specs/contract.ts', '../harness/x.ts'],
      ['reports/x.ts', '../cli/run.ts'],
      ['reports/x.ts', '../harness/proxy/recording-proxy.ts'],
      ['simulator/x.test.ts', '../harness/x.ts'],
      ['harness/proxy/x.ts', '../x.ts'],
      ['cli/x.ts', '../suites/x.ts'],
    ].map(([file, specifier]) => climb(join(ROOT, file!), specifier!) !== undefined),
    'the check sees a climb, a step sideways and a climb out of a unit test, and lets a layer below and its own folder pass',
  ).toEqual([true, true, true, true, true, true, false, false, false, true]);
});

/** The source of what a package export's `default` names in dist/. */
function exportSource(name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
  return join(ROOT, manifest.exports[name]!.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
}

/** The project's modules a module reaches through its relative imports, itself included. */
function reach(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(
      ...moduleSpecifiers(parse(file))
        .filter((s) => s.startsWith('.') && /\.ts$/.test(s))
        .map((s) => resolve(dirname(file), s)),
    );
  }
  return [...seen].map((file) => relative(ROOT, file).split(sep).join('/'));
}

test('the ./simulator export reaches nothing of the harness, and ./report nothing but the report and specs/', () => {
  const simulator = reach(exportSource('./simulator'));
  expect(simulator.length).toBeGreaterThan(20);
  expect(simulator.filter((file) => !/^(simulator|specs)\//.test(file))).toEqual([]);
  expect(reach(exportSource('./report')).filter((file) => !/^(reports|specs)\//.test(file))).toEqual([]);
});

test(`no file of the suites or the harness but ${ADMIN_CLIENT} names the admin path ${ADMIN_PATH}`, () => {
  const offending = files
    .filter((file) => relative(ROOT, file).split(sep).join('/') !== ADMIN_CLIENT)
    .flatMap((file) =>
      literalLines(parse(file), ADMIN_PATH).map(
        (line) => `${relative(ROOT, file)}:${line} spells ${ADMIN_PATH}: call the admin protocol through ${ADMIN_CLIENT}`,
      ),
    );
  expect(offending, offending.join('\n')).toEqual([]);
});

test('the admin client has one method per operation of the admin protocol, named by its operationId', () => {
  const ids = contract().adminOperations.map((op) => op.operationId);
  expect(ids.length).toBeGreaterThan(0);
  const methods = Object.getOwnPropertyNames(AdminClient.prototype).filter((name) => name !== 'constructor' && name !== 'call');
  expect(methods.sort()).toEqual([...ids].sort());
});

test('the checks see what they look for: imports of every form, and the admin path in code but not in comments', () => {
  const file = join(ROOT, 'harness', 'example.ts');
  const source = parse(
    file,
    [
      "import { a } from '../simulator/simulator.ts';",
      "import type { B } from '../specs/types/simulator-admin.ts';",
      "export { c } from '../simulator/auth/workspaces.ts';",
      "const d = await import('../simulator/clock.ts');",
      "type E = import('../simulator/deployment-config.ts').DeploymentConfigFile;",
      '// a comment may name /__sim/info',
      "const f = '/__sim/info';",
      'const g = `${url}/__sim/reset`;',
      '/* and /__sim here too */ const h = /^\\/__sim\\//;',
    ].join('\n'),
  );
  expect(moduleSpecifiers(source).filter((s) => climb(file, s) !== undefined)).toEqual([
    '../simulator/simulator.ts',
    '../simulator/auth/workspaces.ts',
    '../simulator/clock.ts',
    '../simulator/deployment-config.ts',
  ]);
  expect(literalLines(source, ADMIN_PATH)).toEqual([7, 8, 9]);
});

/** The lines on which code calls `test.skip(…)` or `test.fixme(…)` itself. */
function rawSkipLines(source: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === 'test' &&
      ['skip', 'fixme'].includes(node.expression.name.text)
    ) {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** The one file that may skip a test itself: it gives every skip its kind (declared, precondition, machine). */
const ATTRIBUTION = 'harness/checks/attribution.ts';

test(`every skip of the suites and the harness says its kind, through ${ATTRIBUTION}`, () => {
  const offending = files
    .filter((file) => relative(ROOT, file).split(sep).join('/') !== ATTRIBUTION)
    .flatMap((file) =>
      rawSkipLines(parse(file)).map(
        (line) =>
          `${relative(ROOT, file)}:${line} calls test.skip itself: use skipDeclared, skipForPrecondition (naming the rules that explain it) or skipForMachine, so the report can weigh the skip`,
      ),
    );
  expect(offending, offending.join('\n')).toEqual([]);
  const example = parse(join(ROOT, 'suites', 'example.ts'), "test.skip(true, 'a');\nskipDeclared(true, 'b');\ntest.fixme();\n");
  expect(rawSkipLines(example), 'the check sees a raw skip').toEqual([1, 3]);
});

/** The lines on which code reads or writes `process.env` (not a comment, not a string that shows it). */
function environmentLines(source: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && ts.isIdentifier(node.expression) && node.expression.text === 'process') {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/**
 * The shipped modules that may touch the environment, and why. Every other option of a run
 * travels typed, in the run's plan, and the suites see it only through fixtures.
 */
const ENVIRONMENT_READERS: Record<string, string> = {
  'harness/conformance-options.ts': "the one channel of the run's options into the suites' process (and whether output goes to a CI log)",
  'harness/environment.ts': 'the variables a target config names (API keys, bearer tokens, webhook header values): secrets stay where CI keeps them',
};
const SHIPPED = ['cli', 'harness', 'reports', 'simulator', 'specs', 'suites'];

test('no shipped module reads process.env but the run options channel and the environment of secrets', () => {
  const shipped = SHIPPED.flatMap((dir) => sourceFiles(join(ROOT, dir))).filter(
    (file) => !/\.test\.ts$/.test(file) && !file.includes(`${sep}types${sep}generate`),
  );
  expect(shipped.length).toBeGreaterThan(150);
  const offending = shipped
    .filter((file) => !(relative(ROOT, file).split(sep).join('/') in ENVIRONMENT_READERS))
    .flatMap((file) =>
      environmentLines(parse(file)).map(
        (line) =>
          `${relative(ROOT, file)}:${line} reads process.env: declare a run option in harness/conformance-options.ts (the fixtures hand it to the suites), or read a secret the target config names through harness/environment.ts`,
      ),
    );
  expect(offending, offending.join('\n')).toEqual([]);
  const example = parse(
    join(ROOT, 'harness', 'example.ts'),
    "const a = process.env.A;\n// process.env.B\nconst c = 'process.env.C';\nconst { env } = process;\nprocess.env['D'] = '1';\n",
  );
  expect(environmentLines(example), 'the check sees process.env in code only').toEqual([1, 5]);
});

/** What a module directly in a plane's folder of suites/ may be called: a spec file, a concept's steps, the plane's own fixtures. */
const SUITE_MODULE = /^([a-z0-9-]+\.spec|[a-z0-9]+(-[a-z0-9]+)*-steps|fixtures)\.ts$/;

test("the modules beside a plane's spec files follow one naming scheme: <concept>-steps.ts, or fixtures.ts", () => {
  const planes = readdirSync(join(ROOT, 'suites'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'rate-limits');
  expect(planes.map((p) => p.name).sort()).toEqual(['agent-server', 'control-plane', 'platform-api']);
  const offending = planes.flatMap((plane) =>
    readdirSync(join(ROOT, 'suites', plane.name), { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !SUITE_MODULE.test(e.name))
      .map((e) => `suites/${plane.name}/${e.name}: name a plane's shared steps <concept>-steps.ts (runs-steps.ts), its own fixtures fixtures.ts`),
  );
  expect(offending, offending.join('\n')).toEqual([]);
  expect(['traces.ts', 'steps.ts', 'runs-steps.ts', 'threads-create.spec.ts', 'fixtures.ts'].map((name) => SUITE_MODULE.test(name))).toEqual([
    false,
    false,
    true,
    true,
    true,
  ]);
});
