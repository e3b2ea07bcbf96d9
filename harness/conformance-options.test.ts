// The run's options, declared once: the command line's values become typed options with their
// defaults, a bad value names its flag, and --help shows every option users set (none of the self-tests').
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { flagOf, OptionError, planOf, readConformanceOptions, CONFORMANCE_OPTIONS, type OptionName, conformanceOptionsHelp } from './conformance-options.ts';

test('no flag given: the defaults, the report folder resolved', () => {
  const options = readConformanceOptions({});
  expect(options.out).toBe(resolve('conformance-report'));
  expect(options.seed).toBe('1');
  expect(options.plane).toEqual([]);
  expect(options.quiet).toBe(false);
  expect(options.profile).toBeUndefined();
  expect(options.workers).toBeUndefined();
});

test('each flag is read into its typed option', () => {
  const options = readConformanceOptions({
    out: 'r',
    plane: ['agent-server', 'platform-api'],
    workers: '3',
    'max-duration': '1.5',
    shard: '2/3',
    'replay-property': '-42:3:1:0',
    'github-annotations': true,
    'webhook-receiver-port': '4567',
    profile: 'safe',
  });
  expect(options).toMatchObject({
    out: resolve('r'),
    plane: ['agent-server', 'platform-api'],
    workers: 3,
    maxDuration: 1.5,
    shard: { index: 2, count: 3 },
    replayProperty: { seed: -42, path: '3:1:0' },
    githubAnnotations: true,
    webhookReceiverPort: 4567,
    profile: 'safe',
  });
});

test('a bad value is an OptionError naming its flag, and a near miss is suggested', () => {
  const cases: [Record<string, string | string[]>, RegExp][] = [
    [{ workers: '0' }, /--workers must be a whole number from 1 to 64, got '0'/],
    [{ 'max-duration': 'soon' }, /--max-duration must be a positive number/],
    [{ shard: '3/2' }, /--shard must be i\/n with 1 <= i <= n, got '3\/2'/],
    [{ plane: ['agent_server'] }, /did you mean 'agent-server'/],
    [{ profile: 'ful' }, /did you mean 'full'/],
    [{ clock: 'wall' }, /unknown clock 'wall' \(one of virtual, real\)/],
    [{ 'replay-property': '42' }, /--replay-property must be <seed>:<path>/],
  ];
  for (const [values, message] of cases) {
    expect(() => readConformanceOptions(values), JSON.stringify(values)).toThrow(OptionError);
    expect(() => readConformanceOptions(values), JSON.stringify(values)).toThrow(message);
  }
});

test("--help lists every option but the self-tests' own, each with its doc", () => {
  const help = conformanceOptionsHelp();
  for (const [name, declaration] of Object.entries(CONFORMANCE_OPTIONS) as [OptionName, { internal?: boolean; doc: string }][]) {
    const listed = help.includes(`  ${flagOf(name)}`);
    expect(listed, flagOf(name)).toBe(!declaration.internal);
    if (listed) expect(help).toContain(declaration.doc.split('\n')[0]);
  }
  expect(flagOf('githubAnnotations')).toBe('--github-annotations');
});

test("the reference's summary of run names every option --help shows", () => {
  const reference = readFileSync(resolve(import.meta.dirname, '../docs/reference.md'), 'utf8');
  const row = reference.split('\n').find((line) => line.startsWith('| `run` |'))!;
  const missing = (Object.keys(CONFORMANCE_OPTIONS) as OptionName[]).filter(
    (name) => !CONFORMANCE_OPTIONS[name].internal && !row.includes(`\`${flagOf(name)}`),
  );
  expect(missing, 'options of run missing from docs/reference.md').toEqual([]);
});

test('a config that was not handed a plan says to run through the CLI', () => {
  expect(() => planOf({ metadata: {} })).toThrow(/run the suites through the CLI/);
});
