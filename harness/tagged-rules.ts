// Which rules the suites' tests are tagged with, read from Playwright's own test list.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { defaultPlan, suitesEnvironment } from './conformance-options.ts';
import { RULE_TAG } from '../specs/evidence-protocol.ts';

interface ListedSuite {
  title: string;
  specs: { tags: string[]; title: string; file: string; line: number }[];
  suites?: ListedSuite[];
}

/** A test of the suites and the rule ids it is tagged with. */
export interface TaggedTest {
  /** The spec file, relative to suites/. */
  file: string;
  /** The line of its `test(` call: for a test generated in a loop, the loop's. */
  line: number;
  title: string;
  /** The titles of the describe blocks it is in, outermost first. */
  describes: string[];
  rules: string[];
}

/** Rule id → titles of the tests tagged with it. */
export function taggedRules(): Map<string, string[]> {
  const byRule = new Map<string, string[]>();
  for (const test of taggedTests()) for (const id of test.rules) byRule.set(id, [...(byRule.get(id) ?? []), test.title]);
  return byRule;
}

/** Every test of the suites, with its rule tags. */
export function taggedTests(): TaggedTest[] {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const out = execFileSync(
    process.execPath,
    [cli, 'test', '-c', join(import.meta.dirname, `playwright.config${extname(import.meta.filename)}`), '--list', '--reporter=json'],
    {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      // A run that only lists its tests: the defaults, its folders under test-results/.
      env: suitesEnvironment(defaultPlan(join(import.meta.dirname, '..', 'test-results', 'coverage-list'))),
    },
  );
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { suites: ListedSuite[] };
  const tests: TaggedTest[] = [];
  // A file's suite is titled with its path; the suites within it are its describe blocks.
  const visit = (suite: ListedSuite, describes: string[]) => {
    for (const spec of suite.specs) {
      const rules = spec.tags.flatMap((t) => RULE_TAG.exec(`@${t.replace(/^@/, '')}`)?.[1] ?? []);
      tests.push({ file: spec.file, line: spec.line, title: spec.title, describes, rules });
    }
    for (const inner of suite.suites ?? []) visit(inner, [...describes, inner.title]);
  };
  for (const file of report.suites) visit(file, []);
  return tests;
}
