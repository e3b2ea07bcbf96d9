// Which rules the suites' tests are tagged with, read from Playwright's own test list.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { RULE_TAG } from '../reports/build.ts';
import { PLANES } from '../specs/contract.ts';
import { readRunOptions, suitesEnvironment, type RunPlan } from './run-options.ts';

/** The plan of a run that only lists its tests: the defaults, its folders under test-results/. */
function listingPlan(): RunPlan {
  const out = join(import.meta.dirname, '..', 'test-results', 'coverage-list');
  return { options: readRunOptions({ out }), planes: [...PLANES], narrowed: [], rerun: [], workers: 1, scratch: out, testResults: out, progress: 'line' };
}

interface ListedSuite {
  specs: { tags: string[]; title: string }[];
  suites?: ListedSuite[];
}

/** Rule id → titles of the tests tagged with it. */
export function taggedRules(): Map<string, string[]> {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const out = execFileSync(
    process.execPath,
    [cli, 'test', '-c', join(import.meta.dirname, `playwright.config${extname(import.meta.filename)}`), '--list', '--reporter=json'],
    {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: suitesEnvironment(listingPlan()),
    },
  );
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { suites: ListedSuite[] };
  const byRule = new Map<string, string[]>();
  const visit = (suite: ListedSuite) => {
    for (const spec of suite.specs) {
      for (const tag of spec.tags.map((t) => `@${t.replace(/^@/, '')}`)) {
        const id = RULE_TAG.exec(tag)?.[1];
        if (id) byRule.set(id, [...(byRule.get(id) ?? []), spec.title]);
      }
    }
    suite.suites?.forEach(visit);
  };
  report.suites.forEach(visit);
  return byRule;
}
