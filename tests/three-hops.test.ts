// Three hops: from a rule id to its tagged test (grep suites/) and on to the code that
// implements it (grep simulator/ specs/). The third hop is one grep only if the id stands at
// that code, so a rule counts as named only where it does:
// - in a source of simulator/ (unit tests excluded): in a comment on a line of code, or in a
//   comment directly above one (a function, a method, a route entry, a statement);
// - in specs/openapi/*.yaml: in x-rule, x-rules or x-required-rule on the node (schema,
//   parameter, response) whose constraints implement it, or in a comment directly above a node;
// - in specs/rate-limits.yaml: as the `rule` of the row the rate limiter enforces.
// A file header, a comment cut off from code by a blank line, and a comment naming more than
// MAX_IDS rules (a list: it points away from the code) do not count. A rule the simulator has
// nothing to implement for is listed in tests/unimplemented-rules.yaml with a reason instead.
import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract } from '../specs/contract.ts';

const ROOT = resolve(import.meta.dirname, '..');
const UNIMPLEMENTED = 'tests/unimplemented-rules.yaml';
const OPENAPI = 'specs/openapi';
const RATE_LIMITS = 'specs/rate-limits.yaml';
/** More rule ids than this in one comment make it a list. */
const MAX_IDS = 6;
/** The keys of specs/openapi that name the rules a node implements. */
const ANNOTATIONS = ['x-rule', 'x-rules', 'x-required-rule'];

/** A rule id as written in text: upper-case words joined by hyphens, standing alone. */
const RULE_ID = /(?<![A-Za-z0-9-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![A-Za-z0-9-])/g;

const HOW_TO_NAME =
  `name it in a comment on, or directly above, the function, method, route entry or statement of simulator/ that implements it ` +
  `(at most ${MAX_IDS} ids a comment), or in x-rules on the node of ${OPENAPI}/*.yaml whose constraints implement it`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const simulatorSources = () => filesUnder(join(ROOT, 'simulator')).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
const openApiDocuments = () => filesUnder(join(ROOT, OPENAPI)).filter((file) => file.endsWith('.yaml'));

const idsIn = (text: string): string[] => [...new Set(text.match(RULE_ID) ?? [])];

/** Where one comment stands: `line` (1-based) is where it starts. */
interface Comment {
  file: string;
  line: number;
  ids: string[];
  /** Why its ids do not count, if they do not. */
  notAtCode?: string;
}

type LineKind = 'blank' | 'comment' | 'code';

/** Each line of a TypeScript source as blank, comment only (`//`, or inside or opening a block comment), or code. */
function typeScriptLines(lines: string[]): LineKind[] {
  let inBlock = false;
  return lines.map((line) => {
    const text = line.trim();
    if (inBlock) {
      inBlock = !text.includes('*/');
      return 'comment';
    }
    if (text === '') return 'blank';
    if (text.startsWith('//')) return 'comment';
    if (text.startsWith('/*')) {
      const end = text.indexOf('*/', 2);
      if (end < 0) inBlock = true;
      return end < 0 || text.slice(end + 2).trim() === '' ? 'comment' : 'code';
    }
    return 'code';
  });
}

const yamlLines = (lines: string[]): LineKind[] => lines.map((line) => (line.trim() === '' ? 'blank' : line.trim().startsWith('#') ? 'comment' : 'code'));

/**
 * The comments of a file that name rules: each run of comment-only lines, and each line of code
 * (its trailing comment; in YAML only comment lines are read, a node's values are read parsed).
 */
function commentsOf(file: string): Comment[] {
  const yaml = file.endsWith('.yaml');
  const lines = readFileSync(file, 'utf8').split('\n');
  const kinds = yaml ? yamlLines(lines) : typeScriptLines(lines);
  const at = relative(ROOT, file);
  const comments: Comment[] = [];
  for (let start = 0; start < lines.length; start++) {
    if (kinds[start] === 'code') {
      if (!yaml) comments.push({ file: at, line: start + 1, ids: idsIn(lines[start]!) });
      continue;
    }
    if (kinds[start] !== 'comment') continue;
    let end = start;
    while (kinds[end + 1] === 'comment') end++;
    const next = lines[end + 1];
    const notAtCode =
      start === 0 || (next !== undefined && /^import\b/.test(next)) ? 'file header' : kinds[end + 1] !== 'code' ? 'not directly above code' : undefined;
    comments.push({ file: at, line: start + 1, ids: idsIn(lines.slice(start, end + 1).join('\n')), notAtCode });
    start = end;
  }
  return comments
    .filter((c) => c.ids.length > 0)
    .map((c) => (c.notAtCode === undefined && c.ids.length > MAX_IDS ? { ...c, notAtCode: `a list of ${c.ids.length} ids` } : c));
}

/** The rule ids of a parsed OpenAPI document's annotations (ANNOTATIONS), wherever they stand. */
function annotatedIds(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(annotatedIds);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    ANNOTATIONS.includes(key) ? [value].flat().filter((id): id is string => typeof id === 'string') : annotatedIds(value),
  );
}

/** For each rule id, the places that name it at the code that implements it. */
function namedAtCode(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  const add = (id: string, where: string) => named.set(id, [...(named.get(id) ?? []), where]);
  for (const file of [...simulatorSources(), ...openApiDocuments()]) {
    for (const comment of commentsOf(file)) if (comment.notAtCode === undefined) for (const id of comment.ids) add(id, `${comment.file}:${comment.line}`);
  }
  for (const file of openApiDocuments()) for (const id of annotatedIds(parseYaml(readFileSync(file, 'utf8')))) add(id, relative(ROOT, file));
  for (const row of contract().rateLimits) add(row.rule, `${RATE_LIMITS} (row ${row.id})`);
  return named;
}

/** For each rule-shaped id, every file that names it in any way (comments, lists, descriptions). */
function namedAnywhere(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const file of [...simulatorSources(), ...openApiDocuments(), join(ROOT, RATE_LIMITS)]) {
    for (const id of idsIn(readFileSync(file, 'utf8'))) named.set(id, [...(named.get(id) ?? []), relative(ROOT, file)]);
  }
  return named;
}

interface Unimplemented {
  id: string;
  reason: string;
}

const unimplemented = (parseYaml(readFileSync(join(ROOT, UNIMPLEMENTED), 'utf8')) as { rules: Unimplemented[] }).rules;

test('every rule is named at the code that implements it, or listed as unimplemented with a reason', () => {
  const named = namedAtCode();
  const elsewhere = [...simulatorSources(), ...openApiDocuments()].flatMap(commentsOf).filter((c) => c.notAtCode !== undefined);
  const listed = new Set(unimplemented.map((u) => u.id));
  const missing = contract()
    .rules.filter((r) => !named.has(r.id) && !listed.has(r.id))
    .map((r) => {
      const only = elsewhere.filter((c) => c.ids.includes(r.id)).map((c) => `${c.file}:${c.line} (${c.notAtCode})`);
      return `${r.id} (${r.level}, ${r.plane}, §${r.section})${only.length > 0 ? `, named only in ${only.join(', ')}` : ''}`;
    });
  expect(
    missing,
    `rules not named at the code that implements them, and not in ${UNIMPLEMENTED}:\n${missing.join('\n')}\n${HOW_TO_NAME}, or list it in ${UNIMPLEMENTED} with a reason`,
  ).toEqual([]);
});

test(`no comment of simulator/ or ${OPENAPI} lists more than ${MAX_IDS} rules`, () => {
  const lists = [...simulatorSources(), ...openApiDocuments()]
    .flatMap(commentsOf)
    .filter((c) => c.ids.length > MAX_IDS)
    .map((c) => `${c.file}:${c.line} names ${c.ids.length}: ${c.ids.join(', ')}`);
  expect(lists, `lists of rule ids send a reader on a second search:\n${lists.join('\n')}\nmove each id to its code: ${HOW_TO_NAME}`).toEqual([]);
});

test(`${UNIMPLEMENTED} lists known rules the simulator does not name, once each, with a reason`, () => {
  const named = namedAnywhere();
  const unknown = unimplemented.filter((u) => !contract().rule(u.id)).map((u) => u.id);
  expect.soft(unknown, `${UNIMPLEMENTED} names rules that are not in specs/rules.yaml`).toEqual([]);
  const stale = unimplemented.filter((u) => named.has(u.id)).map((u) => `${u.id} (named in ${named.get(u.id)!.join(', ')})`);
  expect.soft(stale, `listed as unimplemented but named in the simulator now: remove them from ${UNIMPLEMENTED}\n${stale.join('\n')}`).toEqual([]);
  const twice = unimplemented.map((u) => u.id).filter((id, i, all) => all.indexOf(id) !== i);
  expect.soft(twice, `listed more than once in ${UNIMPLEMENTED}`).toEqual([]);
  const unexplained = unimplemented.filter((u) => typeof u.reason !== 'string' || u.reason.trim().length < 10).map((u) => u.id);
  expect(unexplained, `rules of ${UNIMPLEMENTED} without a reason`).toEqual([]);
});

test('every rule-shaped id the simulator names is a rule (no misspelt ids)', () => {
  const prefixes = new Set(contract().rules.map((r) => r.id.split('-')[0]));
  const misspelt = [...namedAnywhere()]
    .filter(([id]) => prefixes.has(id.split('-')[0]) && !contract().rule(id))
    .map(([id, files]) => `${id} (in ${files.join(', ')})`);
  expect(misspelt, `ids named in simulator/, ${OPENAPI} or ${RATE_LIMITS} that are not in specs/rules.yaml:\n${misspelt.join('\n')}`).toEqual([]);
});
