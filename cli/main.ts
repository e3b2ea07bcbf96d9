// The command line: run (suites against a target, report written), simulate (the
// simulator on loopback) and proxy (a standalone recording, validating proxy).
import { EXIT, NAME, UsageError } from './args.ts';
import { outliveClosedOutput } from '../harness/closed-output.ts';
import { TOOL } from '../harness/tool.ts';
import { unknownName } from '../specs/suggest.ts';
import { compare, COMPARE_HELP } from './compare.ts';
import { matrix, MATRIX_HELP } from './matrix.ts';
import { merge, MERGE_HELP } from './merge.ts';
import { proxy, PROXY_HELP } from './proxy.ts';
import { run, RUN_HELP } from './run.ts';
import { simulate, SIMULATE_HELP } from './simulate.ts';

export { EXIT };

const MAIN_HELP = `${NAME}: conformance harness and simulator for the Agent Platform API

Usage: ${NAME} <command> [options]

Commands:
  run       run the conformance suites against a target and write a report
  simulate  start the deterministic simulator on loopback and print its URLs and keys
  proxy     start a standalone recording, validating proxy in front of a target
  compare   compare two reports rule by rule (regressions, fixes, changes)
  merge     join the report folders of a run's shards (run --shard i/n) into one
  matrix    several targets' reports side by side, and over time (a static site, matrix.json, matrix.md)

Options:
  -V, --version  print the version
  -h, --help     this help

Run '${NAME} <command> --help' for a command's options.`;

const COMMANDS: Record<string, { run: (args: string[]) => Promise<number>; help: string }> = {
  run: { run, help: RUN_HELP },
  simulate: { run: simulate, help: SIMULATE_HELP },
  proxy: { run: proxy, help: PROXY_HELP },
  compare: { run: compare, help: COMPARE_HELP },
  merge: { run: merge, help: MERGE_HELP },
  matrix: { run: matrix, help: MATRIX_HELP },
};

export async function main(argv: string[]): Promise<number> {
  outliveClosedOutput();
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    console.log(MAIN_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '-V' || name === '--version') {
    console.log(TOOL.version);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(unknownName('command', name, Object.keys(COMMANDS)));
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      // The reason, and where the options are: the whole help would bury the reason in a CI log.
      console.error(`${NAME}: ${error.message}\n${command ? `Run '${NAME} ${name} --help' for its options.` : `\n${MAIN_HELP}`}`);
      return EXIT.usage;
    }
    throw error;
  }
}
