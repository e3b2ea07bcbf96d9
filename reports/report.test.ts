// Verdicts from outcomes, and what each format says of them (the HTML report in Chromium: html.test.ts).
import { expect, test } from '@playwright/test';
import type { Rule } from '../specs/contract.ts';
import { buildReport, verdictOf } from './build.ts';
import { consoleSummary } from './console.ts';
import { toHtml } from './html.ts';
import { toJUnit } from './junit.ts';
import { reportProblems } from './load.ts';
import { toMarkdown } from './markdown.ts';
import type { TestOutcome } from './conformance-report.ts';

const rule = (id: string, level: Rule['level'] = 'MUST', source: Rule['source'] = level === 'SHOULD' ? 'service' : 'spec'): Rule => ({
  id,
  level,
  source,
  plane: 'agent-server',
  area: 'threads',
  section: '4.5',
  text: `${id} text`,
});
const outcome = (status: TestOutcome['status'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  id: status,
  title: `a ${status} test`,
  file: 'x.spec.ts',
  status,
  observed: [],
  exchanges: [],
  ...extra,
});

test('a verdict comes from the tests of the rule', () => {
  expect(verdictOf(rule('A-B'), [])).toBe('not-tested');
  expect(verdictOf(rule('A-B'), [outcome('skipped')])).toBe('skipped');
  expect(verdictOf(rule('A-B'), [outcome('passed'), outcome('skipped')])).toBe('pass');
  expect(verdictOf(rule('A-B'), [outcome('passed'), outcome('failed')])).toBe('fail');
  expect(verdictOf(rule('A-B'), [outcome('timedOut')])).toBe('fail');
  expect(verdictOf(rule('A-B', 'unspecified'), [outcome('failed')])).toBe('observed');
  expect(verdictOf(rule('A-B'), [outcome('not-run'), outcome('skipped')]), 'a stopped run says nothing').toBe('not-run');
  expect(verdictOf(rule('A-B'), [outcome('interrupted')])).toBe('not-run');
  expect(verdictOf(rule('A-B'), [outcome('interrupted'), outcome('passed')])).toBe('pass');
});

test('a multi-rule test that says which rule failed fails only that one', () => {
  const report = buildReport({
    rules: [rule('R-ONE'), rule('R-TWO')],
    tests: [{ outcome: outcome('failed', { error: 'boom' }), ruleIds: ['R-ONE', 'R-TWO'], failures: [{ rule: 'R-TWO', message: 'boom' }] }],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  expect(report.rules.map((r) => r.verdict)).toEqual(['skipped', 'fail']);
  expect(report.summary.mustFailures).toBe(1);
});

test('a multi-rule test that ran to its end judging each rule apart passes the rules it did not fail', () => {
  const build = (judgedApart: boolean) =>
    buildReport({
      rules: [rule('R-ONE'), rule('R-TWO', 'SHOULD'), rule('R-THREE')],
      tests: [
        {
          outcome: outcome('failed', {
            error: 'R-TWO: history [exchange e-2]\n\nR-THREE: state [exchange e-3]',
            exchanges: ['e-2', 'e-3'],
            failedExchange: 'e-2',
          }),
          ruleIds: ['R-ONE', 'R-TWO', 'R-THREE'],
          failures: [
            { rule: 'R-TWO', message: 'history', exchange: 'e-2' },
            { rule: 'R-THREE', message: 'state', exchange: 'e-3' },
          ],
          judgedApart,
        },
      ],
      exchanges: [],
      target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
      seed: '1',
      run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
      tool: { name: 'x', version: '0' },
    });
  const apart = build(true);
  expect(apart.rules.map((r) => r.verdict)).toEqual(['pass', 'fail', 'fail']);
  // Each failed rule shows the exchange its own failure names.
  expect(apart.rules.map((r) => r.tests[0].failedExchange)).toEqual([undefined, 'e-2', 'e-3']);
  // A test stopped by a failure outside forRule never reached the other rules' checks.
  const stopped = build(false);
  expect(stopped.rules.map((r) => r.verdict)).toEqual(['skipped', 'fail', 'fail']);
  expect(stopped.summary.mustNotJudged.map((n) => n.id)).toEqual(['R-ONE']);
});

test('a rule whose check a multi-rule test could not make is skipped on that precondition, never passed', () => {
  const build = (status: 'passed' | 'failed') =>
    buildReport({
      rules: [rule('R-ONE'), rule('R-TWO')],
      tests: [
        {
          outcome: outcome(status, status === 'failed' ? { error: 'R-ONE: the plain URL was refused' } : {}),
          ruleIds: ['R-ONE', 'R-TWO'],
          failures: status === 'failed' ? [{ rule: 'R-ONE', message: 'the plain URL was refused' }] : [],
          judgedApart: status === 'failed',
          notJudged: [{ rule: 'R-TWO', reason: 'precondition failed: no plain URL was notified', explainedBy: ['R-ONE'] }],
        },
      ],
      exchanges: [],
      target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
      seed: '1',
      run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
      tool: { name: 'x', version: '0' },
    });
  const failed = build('failed');
  expect(failed.rules.map((r) => r.verdict)).toEqual(['fail', 'skipped']);
  expect(failed.rules[1].tests[0]).toMatchObject({
    reason: 'precondition failed: no plain URL was notified',
    skip: { kind: 'precondition', explainedBy: ['R-ONE'] },
  });
  expect(failed.rules[1].tests[0].unexplained, 'R-ONE failed: the skip is explained').toBeUndefined();
  // Its sibling passed, and the step still failed: nothing explains the skip, which may hide a finding.
  const passed = build('passed');
  expect(passed.rules.map((r) => r.verdict)).toEqual(['pass', 'error']);
});

test('expectations turn known failures into expected ones and flag changes both ways', () => {
  const report = buildReport({
    rules: [rule('R-ONE'), rule('R-TWO'), rule('R-THREE')],
    tests: [
      { outcome: outcome('failed'), ruleIds: ['R-ONE'] },
      { outcome: outcome('passed'), ruleIds: ['R-TWO'] },
      { outcome: outcome('failed'), ruleIds: ['R-THREE'] },
    ],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: [], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
    expectations: {
      target: 't',
      expected: [
        { rule: 'R-ONE', verdict: 'fail', reason: 'known' },
        { rule: 'R-TWO', verdict: 'fail', reason: 'was known' },
      ],
    },
  });
  expect(report.summary.unexpected).toEqual(['R-TWO', 'R-THREE']);
});

/** A report of four rules judged against expectations and a baseline, as the formats see it. */
function judged() {
  const input = {
    rules: [
      rule('R-EXPECTED'),
      rule('R-SURPRISE'),
      rule('R-WARNING', 'SHOULD'),
      rule('R-REGRESSED', 'SHOULD'),
      rule('R-FIXED'),
      { ...rule('R-ELSEWHERE'), plane: 'control-plane' as const },
    ],
    tests: [
      { outcome: outcome('failed', { id: 'a', error: 'known departure' }), ruleIds: ['R-EXPECTED'] },
      { outcome: outcome('passed', { id: 'b' }), ruleIds: ['R-SURPRISE'] },
      { outcome: outcome('failed', { id: 'c', error: 'a should' }), ruleIds: ['R-WARNING'] },
      { outcome: outcome('failed', { id: 'd', error: 'broke' }), ruleIds: ['R-REGRESSED'] },
      { outcome: outcome('passed', { id: 'e' }), ruleIds: ['R-FIXED'] },
    ],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server' as const], capabilities: [] },
    seed: '1',
    run: { status: 'complete' as const, profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
    scope: ['agent-server' as const],
    expectations: {
      target: 't',
      expected: [
        { rule: 'R-EXPECTED', verdict: 'fail' as const, reason: 'known' },
        { rule: 'R-SURPRISE', verdict: 'fail' as const, reason: 'was known' },
        { rule: 'R-WARNING', verdict: 'fail' as const, reason: 'a known warning' },
        { rule: 'R-REGRESSED', verdict: 'fail' as const, reason: 'now known' },
      ],
    },
  };
  // The baseline failed the same known rules; R-REGRESSED passed and R-FIXED failed then.
  const before = input.tests.map((t) =>
    t.outcome.id === 'd' ? { ...t, outcome: outcome('passed', { id: 'd' }) } : t.outcome.id === 'e' ? { ...t, outcome: outcome('failed', { id: 'e' }) } : t,
  );
  const baseline = buildReport({ ...input, expectations: undefined, tests: before });
  return buildReport({ ...input, baseline: { file: 'old/report.json', report: baseline } });
}

test('every format tells the outcome the exit code tells: expected failures, surprises, regressions, out of scope', () => {
  const report = judged();
  expect(reportProblems(report), 'the report matches specs/schemas/report.schema.json').toEqual([]);
  const { gate } = report.summary;
  expect(gate.exitCode).toBe(1);
  expect(gate.reasons[0]).toMatch(/1 verdicts differ from the expectations: R-SURPRISE/);
  expect(gate.reasons.join(' ')).toMatch(/1 regressions against old\/report.json: R-REGRESSED/);
  expect(report.summary.outOfScope).toBe(1);
  expect(report.rules.find((r) => r.id === 'R-ELSEWHERE')?.verdict).toBe('out-of-scope');
  expect(report.summary.baseline?.fixes.map((c) => c.id)).toEqual(['R-FIXED']);

  const junit = toJUnit(report);
  // Failures: the unexpected pass and the regression; the expected failures (one SHOULD) are skipped as such.
  expect(junit).toMatch(/<testsuites [^>]* tests="5" failures="2" errors="0" skipped="2">/);
  expect(junit).toMatch(/R-EXPECTED[^\n]*<skipped message="expected failure: known/);
  expect(junit).toMatch(/R-SURPRISE[^\n]*<failure type="unexpected" message="unexpected: pass, expected fail \(was known\)/);
  expect(junit).toMatch(/R-REGRESSED[^\n]*<failure type="regression"/);
  expect(junit).not.toContain('R-ELSEWHERE');

  const markdown = toMarkdown(report);
  expect(markdown).toContain('**Failed** (exit 1)');
  expect(markdown).toMatch(/## What fails the run[\s\S]*R-SURPRISE[\s\S]*R-REGRESSED/);
  expect(markdown).toMatch(/## Failures as expected\n\n- R-EXPECTED \(MUST\): known/);
  expect(markdown).toMatch(/❌ regression \*\*R-REGRESSED\*\* \(SHOULD\): pass → fail/);
  expect(markdown).toMatch(/✅ fixed \*\*R-FIXED\*\*/);

  const lines = consoleSummary(report, 'report.html');
  expect(lines.filter((l) => l.startsWith('  ✘')).map((l) => l.trim().split(' ')[1])).toEqual(['R-SURPRISE', 'R-REGRESSED']);
  expect(lines).toContain(`Result: failed (exit 1): ${gate.reasons.join('; ')}.`);
  expect(toHtml(report)).toContain(`Failed (exit 1): ${gate.reasons[0].replace(/:/, ':')}`);
});

test('without expectations a failed MUST rule fails the run and a failed SHOULD rule is a warning everywhere', () => {
  const report = buildReport({
    rules: [rule('R-MUST'), rule('R-SHOULD', 'SHOULD'), rule('R-UNREACHABLE')],
    tests: [
      { outcome: outcome('failed', { id: 'a', error: 'no' }), ruleIds: ['R-MUST'] },
      { outcome: outcome('failed', { id: 'b', error: 'meh' }), ruleIds: ['R-SHOULD'] },
      { outcome: outcome('error', { id: 'c', error: '[target unreachable] GET /x: ECONNREFUSED' }), ruleIds: ['R-UNREACHABLE'] },
    ],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  expect(report.rules.map((r) => r.verdict)).toEqual(['fail', 'fail', 'error']);
  expect(report.summary.gate.exitCode).toBe(1);
  expect(report.summary.gate.reasons).toEqual([
    '1 MUST rules failed: R-MUST',
    '1 rules could not be judged, the target did not answer their tests: R-UNREACHABLE',
  ]);
  expect(toJUnit(report)).toMatch(/tests="3" failures="1" errors="1" skipped="1"/);
  expect(toJUnit(report)).toMatch(/R-SHOULD[^\n]*<skipped message="SHOULD rule failed \(a warning/);
  expect(consoleSummary(report, 'r.html').at(-1)).toBe('Failing MUST rules: R-MUST');
});

test('a failure message is shown whole in the console, the GitHub annotations and JUnit, not cut at its first line', () => {
  const error = 'POST /threads answered 200 {\n  "thread_id": "t-1",\n  "status": "busy"\n}: 100% sure\r\n\nExpected: "idle"';
  const report = buildReport({
    rules: [rule('R-MUST')],
    tests: [{ outcome: outcome('failed', { id: 'a', error }), ruleIds: ['R-MUST'] }],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  const lines = consoleSummary(report, 'r.html', { githubAnnotations: true });
  for (const line of ['      POST /threads answered 200 {', '        "status": "busy"', '      Expected: "idle"']) expect(lines).toContain(line);
  const annotation = lines.find((l) => l.startsWith('::error '));
  expect(annotation, 'one line, its line breaks, carriage returns and percent signs encoded').toContain(
    'POST /threads answered 200 {%0A  "thread_id": "t-1",%0A  "status": "busy"%0A}: 100%25 sure%0D%0A%0AExpected: "idle"',
  );
  const junit = toJUnit(report);
  expect(junit).toContain(
    'message="MUST rule failed: a failed test: POST /threads answered 200 {&#10;  &quot;thread_id&quot;: &quot;t-1&quot;,&#10;  &quot;status&quot;: &quot;busy&quot;&#10;}: 100% sure&#13;&#10;&#10;Expected: &quot;idle&quot;"',
  );
  const long = buildReport({
    ...{ rules: [rule('R-MUST')], exchanges: [], seed: '1', tool: { name: 'x', version: '0' } },
    target: report.target,
    run: report.run,
    tests: [{ outcome: outcome('failed', { id: 'a', error: `${error}\n${'z'.repeat(10_000)}` }), ruleIds: ['R-MUST'] }],
  });
  expect(consoleSummary(long, 'r.html').join('\n')).toMatch(/\[… \d+ more characters cut; the whole message is in report\.json\]/);
  expect(toJUnit(long)).toMatch(/message="[^"]*\[… \d+ more characters cut/);
});

test('a target that fails only interpretations passes, and every format shows them apart as warnings', () => {
  const report = buildReport({
    rules: [rule('R-MUST'), rule('R-SERVICE', 'SHOULD'), rule('R-READING', 'SHOULD', 'interpretation'), rule('R-ODD', 'MUST', 'interpretation')],
    tests: [
      { outcome: outcome('passed', { id: 'a' }), ruleIds: ['R-MUST'] },
      { outcome: outcome('passed', { id: 'b' }), ruleIds: ['R-SERVICE'] },
      { outcome: outcome('failed', { id: 'c', error: 'our reading does not hold' }), ruleIds: ['R-READING'] },
      // A MUST interpretation cannot be in the catalogue (its schema); even so it never fails the run.
      { outcome: outcome('failed', { id: 'd', error: 'nor this one' }), ruleIds: ['R-ODD'] },
    ],
    exchanges: [],
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  expect(reportProblems(report), 'the report matches specs/schemas/report.schema.json').toEqual([]);
  expect(report.rules.map((r) => [r.id, r.source, r.verdict])).toEqual([
    ['R-MUST', 'spec', 'pass'],
    ['R-SERVICE', 'service', 'pass'],
    ['R-READING', 'interpretation', 'fail'],
    ['R-ODD', 'interpretation', 'fail'],
  ]);
  const s = report.summary;
  expect([s.mustFailures, s.shouldFailures, s.interpretationFailures]).toEqual([0, 0, 2]);
  expect(s.bySource.interpretation).toMatchObject({ rules: 2, verdicts: { fail: 2 } });
  expect(s.bySource.spec).toMatchObject({ rules: 1, verdicts: { pass: 1 } });
  expect(s.gate).toEqual({ exitCode: 0, passed: true, reasons: ['no MUST rule failed or went unjudged'] });

  const junit = toJUnit(report);
  expect(junit).toMatch(/<testsuites [^>]* tests="4" failures="0" errors="0" skipped="2">/);
  expect(junit).toMatch(/<testsuite name="agent-server" tests="2" failures="0" errors="0" skipped="0">/);
  expect(junit).toMatch(/<testsuite name="interpretations" tests="2" failures="0" errors="0" skipped="2">/);
  expect(junit).toMatch(/R-READING \[SHOULD, interpretation\][^\n]*<property name="source" value="interpretation"\/>/);
  expect(junit).toMatch(/R-READING [^\n]*<skipped message="interpretation failed \(a warning/);

  const markdown = toMarkdown(report);
  expect(markdown).toContain('**Passed** (exit 0)');
  expect(markdown).toContain('0 MUST failures, 0 SHOULD failures, 2 interpretation failures');
  expect(markdown).toMatch(/\| interpretation \| 2 \| 0 \| 2 \|/);
  expect(markdown).toMatch(/## Warnings: interpretations failed[^\n]*\n\n### ❌ R-READING \(SHOULD, interpretation, §4\.5 Agent server\)/);
  expect(markdown).not.toContain('## What fails the run');
  expect(markdown).not.toContain('## Warnings: SHOULD rules failed');
  expect(markdown).toContain('| ❌ fail | R-READING | SHOULD | interpretation | 4.5 Agent server |');

  const lines = consoleSummary(report, 'report.html');
  expect(lines[0]).toContain('2 fail (0 MUST, 2 interpretations)');
  expect(lines).toContain("Warnings (interpretations failed: our reading, not the spec's or the service's; they do not fail the run): R-READING, R-ODD.");
  expect(lines.some((l) => l.startsWith('  ✘') || l.startsWith('Failing MUST rules'))).toBe(false);
  expect(lines).toContain('Result: passed (exit 0): no MUST rule failed or went unjudged.');

  const html = toHtml(report);
  expect(html).toContain('Passed (exit 0)');
  expect(html).toMatch(/<b>2<\/b>interpretations failed \(warnings\)/);
  expect(html).toContain('<option value="interpretation">interpretation (our reading)</option>');
  expect(html).toMatch(/<tr class="rule" id="R-READING" data-verdict="fail" data-source="interpretation"[^>]*>[\s\S]*?interpretation failed \(a warning/);
});

test('the exchange a failure names is marked in the summary; a multi-rule test failed on another rule marks none for this one', () => {
  const proxied = (n: number) => ({
    id: `agent-server-${n}`,
    plane: 'agent-server' as const,
    request: { method: 'POST', url: `/threads/t/runs?n=${n}`, headers: [] as [string, string][] },
    response: { status: 200, headers: [] as [string, string][] },
    violations: [],
  });
  const delivery = {
    ...proxied(0),
    id: 'webhook:/apc-hooks/t/x#1',
    delivery: true as const,
    request: { method: 'POST', url: '/apc-hooks/t/x', headers: [] as [string, string][] },
  };
  const exchanges = [proxied(1), delivery, proxied(2), proxied(3), proxied(4)];
  const report = buildReport({
    rules: [rule('R-ONE'), rule('R-TWO')],
    tests: [
      {
        outcome: outcome('failed', { error: `payload.status [exchange ${delivery.id}]`, exchanges: exchanges.map((e) => e.id), failedExchange: delivery.id }),
        ruleIds: ['R-ONE', 'R-TWO'],
        failures: [{ rule: 'R-ONE', message: 'payload.status', exchange: delivery.id }],
      },
    ],
    exchanges,
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  expect(reportProblems(report)).toEqual([]);
  const [one, two] = report.rules;
  expect(one.tests[0].failedExchange).toBe(delivery.id);
  expect(two.tests[0]).toMatchObject({ status: 'skipped' });
  expect(two.tests[0].failedExchange).toBeUndefined();
  // The failed exchange first, marked, then the test's last ones: three in all.
  const markdown = toMarkdown(report);
  expect(markdown).toContain(
    [
      `  - **failed:** webhook delivery \`${delivery.id}\`: \`POST /apc-hooks/t/x\` → 200`,
      '  - exchange `agent-server-3`: `POST /threads/t/runs?n=3` → 200',
      '  - exchange `agent-server-4`: `POST /threads/t/runs?n=4` → 200',
    ].join('\n'),
  );
  expect(markdown).not.toContain('agent-server-2');
});
