// Where the code that implements a rule names it: the third hop, from a rule id to that code.
// tests/three-hops.test.ts requires every rule to be named there (or listed as unimplemented),
// and `npm run rule -- RULE-ID` prints the places. A rule counts as named only where:
// - in a source of simulator/ (unit tests excluded): in a comment on a line of code, or in a
//   comment directly above one (a function, a method, a route entry, a statement);
// - in specs/openapi/*.yaml: in x-rule or x-implements on the node (schema, parameter, response,
//   operation) that states or implements it, or in a comment directly above a node;
// - in specs/rate-limits.yaml: as the `rule` of the row the rate limiter enforces.
// A file header, a comment cut off from code by a blank line, and a comment naming more than
// MAX_IDS rules (a list: it points away from the code) do not count.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';

const ROOT = resolve(import.meta.dirname, '..');
export const OPENAPI = 'specs/openapi';
export const RATE_LIMITS = 'specs/rate-limits.yaml';
/** More rule ids than this in one comment make it a list. */
export const MAX_IDS = 6;
/** The keys of specs/openapi that name the rules a node states or implements (RULE_KEYS of specs/contract.ts). */
const ANNOTATIONS = ['x-rule', 'x-implements'];

/** A rule id as written in text: upper-case words joined by hyphens, standing alone. */
const RULE_ID = /(?<![A-Za-z0-9-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![A-Za-z0-9-])/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

export const simulatorSources = () => filesUnder(join(ROOT, 'simulator')).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
export const openApiDocuments = () => filesUnder(join(ROOT, OPENAPI)).filter((file) => file.endsWith('.yaml'));

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
export function commentsOf(file: string): Comment[] {
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

/** A rule id a YAML file states as data, and the line (1-based) it stands on. */
interface Stated {
  id: string;
  line: number;
  /** The id of the rate-limit row that states it. */
  row?: string;
}

/** The rule ids of an OpenAPI document's annotations (ANNOTATIONS), wherever they stand. */
function annotatedIds(file: string): Stated[] {
  const lineCounter = new LineCounter();
  const found: Stated[] = [];
  visit(parseDocument(readFileSync(file, 'utf8'), { lineCounter }), {
    Pair(_, pair) {
      if (!isScalar(pair.key) || !ANNOTATIONS.includes(String(pair.key.value))) return;
      for (const value of isSeq(pair.value) ? pair.value.items : [pair.value]) {
        if (isScalar(value) && typeof value.value === 'string' && value.range) found.push({ id: value.value, line: lineCounter.linePos(value.range[0]).line });
      }
      return visit.SKIP;
    },
  });
  return found;
}

/** The `rule` of each row of specs/rate-limits.yaml. */
function rateLimitRules(): Stated[] {
  const lineCounter = new LineCounter();
  const found: Stated[] = [];
  visit(parseDocument(readFileSync(join(ROOT, RATE_LIMITS), 'utf8'), { lineCounter }), {
    Map(_, map) {
      const rule = map.get('rule', true);
      if (isScalar(rule) && typeof rule.value === 'string' && rule.range) {
        found.push({ id: rule.value, line: lineCounter.linePos(rule.range[0]).line, row: String(map.get('id')) });
      }
      return rule ? visit.SKIP : undefined;
    },
  });
  return found;
}

/** For each rule id, the places (`file:line`) that name it at the code that implements it. */
export function namedAtCode(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  const add = (id: string, where: string) => named.set(id, [...(named.get(id) ?? []), where]);
  for (const file of [...simulatorSources(), ...openApiDocuments()]) {
    for (const comment of commentsOf(file)) if (comment.notAtCode === undefined) for (const id of comment.ids) add(id, `${comment.file}:${comment.line}`);
  }
  for (const file of openApiDocuments()) for (const { id, line } of annotatedIds(file)) add(id, `${relative(ROOT, file)}:${line}`);
  for (const { id, line, row } of rateLimitRules()) add(id, `${RATE_LIMITS}:${line} (row ${row})`);
  return named;
}

/** For each rule-shaped id, every file that names it in any way (comments, lists, descriptions). */
export function namedAnywhere(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const file of [...simulatorSources(), ...openApiDocuments(), join(ROOT, RATE_LIMITS)]) {
    for (const id of idsIn(readFileSync(file, 'utf8'))) named.set(id, [...(named.get(id) ?? []), relative(ROOT, file)]);
  }
  return named;
}
