// Tries mutations by hand, while writing one or the test meant to catch it:
//   npx tsx tests/self-test/try-mutation.ts <mutation> [run options, e.g. --grep THREAD-SEARCH --plane agent-server]
//   npx tsx tests/self-test/try-mutation.ts --rule <RULE-ID> [run options]
// Starts a broken target with one mutation alone, runs the suites against it and prints the rules
// that failed beside those the mutation says it breaks. With --rule, it tries in turn every mutation
// that breaks that rule, each on the tests tagged with the rules it breaks, as the self-test tries it
// (trial-groups.ts): after a change to a rule's tests, it finds in minutes the mutations (of files one may never
// have opened) that the change makes survive. Exit 0 when every mutation tried agrees.
import { startBrokenTarget } from './broken-target.ts';
import { MUTATIONS } from './mutations/index.ts';
import { conformanceRun, failedRules, passedOfNotJudged } from './run-cli.ts';

/** Runs the suites against one mutation and prints what failed; answers whether the failed rules are exactly its breaks. */
async function tryMutation(name: string, args: string[]): Promise<boolean> {
  const mutation = MUTATIONS[name];
  const target = await startBrokenTarget(mutation);
  try {
    const { report, code, out, stdout, stderr } = await conformanceRun(['--target', target.config, ...target.args, ...args], target.env);
    // Exit 2: the run could not judge the target (a usage error, or preflight refused it).
    if (code === 2) console.log(`${stdout}${stderr}`.trim().split('\n').slice(-40).join('\n'));
    const failed = failedRules(report);
    const expected = [...mutation.breaks].sort();
    console.log(`${name}: ${mutation.description}`);
    console.log(`  breaks (expected): ${expected.join(', ') || '(none)'}`);
    console.log(`  failed:            ${failed.join(', ') || '(none)'}`);
    for (const rule of report.rules.filter((r) => r.verdict === 'fail')) {
      const test = rule.tests.find((t) => t.status === 'failed' || t.status === 'timedOut');
      console.log(`  - ${rule.id}: ${test?.title ?? ''}\n      ${(test?.error ?? '').split('\n')[0]}`);
    }
    const passedOnNothing = passedOfNotJudged(report, mutation);
    if (mutation.notJudged)
      console.log(`  not judged (expected): ${mutation.notJudged.join(', ')}; passed of those: ${passedOnNothing.join(', ') || '(none)'}`);
    console.log(`  exit ${code}; report in ${out}`);
    return JSON.stringify(failed) === JSON.stringify(expected) && passedOnNothing.length === 0;
  } finally {
    await target.close();
  }
}

/** The tests tagged with any of `rules`, as a --grep (Playwright matches a test's tags with its title). */
const taggedWith = (rules: string[]) => `@(?:${rules.join('|')})(?:\\s|$)`;

const [first, ...rest] = process.argv.slice(2);
const [names, args] =
  first === '--rule'
    ? [Object.keys(MUTATIONS).filter((name) => rest[0] !== undefined && MUTATIONS[name].breaks.includes(rest[0])), rest.slice(1)]
    : [first !== undefined && MUTATIONS[first] ? [first] : [], rest];
if (names.length === 0) {
  console.error(
    'usage: try-mutation.ts <mutation> [run options]\n       try-mutation.ts --rule <RULE-ID> [run options]\n' +
      (first === '--rule' ? `no mutation breaks ${rest[0] ?? '(no rule given)'}` : `mutations: ${Object.keys(MUTATIONS).join(', ')}`),
  );
  process.exit(2);
}
const disagree: string[] = [];
for (const name of names) {
  const { breaks, notJudged = [] } = MUTATIONS[name];
  const own = first === '--rule' && !args.includes('--grep') ? ['--grep', taggedWith([...breaks, ...notJudged])] : [];
  if (!(await tryMutation(name, [...own, ...args]))) disagree.push(name);
}
if (names.length > 1)
  console.log(
    `\n${names.length - disagree.length}/${names.length} mutations fail exactly their rules${disagree.length ? `; not: ${disagree.join(', ')}` : ''}`,
  );
process.exitCode = disagree.length === 0 ? 0 : 1;
