// The rule lookup prints each hop from the sources it is given, or the exception list's reason;
// an unknown id gets a did-you-mean and exit 2.
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Rule } from '../specs/contract.ts';
import { describeRule, type RuleSources, unknownRule } from './rule-lookup.ts';

const rule: Rule = { id: 'THREAD-GET', level: 'MUST', plane: 'agent-server', area: 'threads', section: '4.5', text: 'GET answers the thread.', source: 'spec' };

const sources: RuleSources = {
  tests: [
    { file: 'agent-server/threads.spec.ts', line: 12, title: 'a thread reads back', describes: [], rules: ['THREAD-GET', 'THREAD-CREATE'] },
    { file: 'agent-server/threads.spec.ts', line: 30, title: 'another rule only', describes: [], rules: ['THREAD-CREATE'] },
  ],
  namedAtCode: new Map([['THREAD-GET', ['simulator/agent-server/threads.ts:40', 'specs/openapi/agent-server.yaml:7']]]),
  mutations: {
    'thread-get-404': { breaks: ['THREAD-GET'], description: 'a thread is never found' },
    'thread-create-500': { breaks: ['THREAD-CREATE'], description: 'creating fails' },
  },
  untested: new Map(),
  unimplemented: new Map(),
  unmutated: new Map(),
};

test('a rule with a test, code and a mutation lists each under its hop, and nothing of other rules', () => {
  expect(describeRule(rule, sources)).toEqual([
    'THREAD-GET  MUST, spec, agent-server, §4.5 Agent server',
    '  GET answers the thread.',
    '',
    'tests:',
    '  suites/agent-server/threads.spec.ts:12  a thread reads back',
    'code:',
    '  simulator/agent-server/threads.ts:40',
    '  specs/openapi/agent-server.yaml:7',
    'mutations:',
    '  thread-get-404  a thread is never found',
    '  try them: npx tsx tests/self-test/try-mutation.ts --rule THREAD-GET',
  ]);
});

test('a hop missing on purpose shows the exception list and its reason', () => {
  const bare: RuleSources = {
    ...sources,
    namedAtCode: new Map(),
    mutations: {},
    untested: new Map([['THREAD-GET', 'no request can show it']]),
    unimplemented: new Map([['THREAD-GET', 'nothing to implement']]),
  };
  const lines = describeRule({ ...rule, unobservable: 'hidden from requests' }, { ...bare, tests: [] });
  expect(lines).toContain('  unobservable: hidden from requests');
  expect(lines).toContain('  none: no request can show it (suites/untested-rules.yaml)');
  expect(lines).toContain('  none: nothing to implement (tests/unimplemented-rules.yaml)');
  expect(lines).toContain('  none (a rule without a test needs none)');
  expect(describeRule(rule, { ...bare, unmutated: new Map([['THREAD-GET', 'the front cannot']]) })).toContain(
    '  none: the front cannot (tests/self-test/unmutated-rules.yaml)',
  );
});

test('an unknown id gets the closest rule, or the rules that contain it', () => {
  const ids = ['THREAD-GET-UNKNOWN-404', 'THREAD-GET', 'RUN-CREATE'];
  expect(unknownRule('THREAD-GET-UNKOWN-404', ids)).toBe("unknown rule 'THREAD-GET-UNKOWN-404': did you mean 'THREAD-GET-UNKNOWN-404'?");
  expect(unknownRule('unknown-404', ids)).toBe("unknown rule 'unknown-404'; rules that contain it: THREAD-GET-UNKNOWN-404");
  expect(unknownRule('WEBHOOK', ids)).toBe("unknown rule 'WEBHOOK' (not in specs/rules.yaml)");
});

test('npm run rule with an unknown id exits 2 with a did-you-mean', () => {
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  let failure: { status: number; stderr: string } | undefined;
  try {
    execFileSync(process.execPath, [tsx, join(import.meta.dirname, 'rule.ts'), 'THREAD-GET-UNKOWN-404'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    failure = error as { status: number; stderr: string };
  }
  expect(failure?.status).toBe(2);
  expect(failure?.stderr).toContain("did you mean 'THREAD-GET-UNKNOWN-404'?");
});
