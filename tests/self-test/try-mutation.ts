// Tries one mutation by hand, while writing it or the test meant to catch it:
//   npx tsx tests/self-test/try-mutation.ts <mutation> [run options, e.g. --grep THREAD-SEARCH --plane agent-server]
// Starts a broken target with that mutation alone, runs the suites against it and prints the rules
// that failed beside those the mutation says it breaks. Exit 0 when they agree.
import { startBrokenTarget } from './broken-target.ts';
import { MUTATIONS } from './mutations/index.ts';
import { conformanceRun, failedRules } from './run-cli.ts';

const [name, ...args] = process.argv.slice(2);
const mutation = name === undefined ? undefined : MUTATIONS[name];
if (!mutation) {
  console.error(`usage: try-mutation.ts <mutation> [run options]\nmutations: ${Object.keys(MUTATIONS).join(', ')}`);
  process.exit(2);
}
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
  console.log(`  exit ${code}; report in ${out}`);
  process.exitCode = JSON.stringify(failed) === JSON.stringify(expected) ? 0 : 1;
} finally {
  await target.close();
}
