// The command line: run (suites against a target, report written), simulate (the
// simulator on loopback) and proxy (a standalone recording, validating proxy).
import { EXIT, NAME, UsageError } from './args.ts';
import { outliveClosedOutput } from '../harness/closed-output.ts';
import { TOOL } from '../harness/tool.ts';
import { unknownName } from '../specs/suggest.ts';
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

// Each command's module is loaded when it runs: --help, --version and a short command start fast.
const COMMANDS: Record<string, () => Promise<(args: string[]) => Promise<number>>> = {
  run: async () => (await import('./run.ts')).run,
  simulate: async () => (await import('./simulate.ts')).simulate,
  proxy: async () => (await import('./proxy.ts')).proxy,
  compare: async () => (await import('./compare.ts')).compare,
  merge: async () => (await import('./merge.ts')).merge,
  matrix: async () => (await import('./matrix.ts')).matrix,
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
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (!command) throw new UsageError(unknownName('command', name, Object.keys(COMMANDS)));
    return await (await command())(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      // The reason, and where the options are: the whole help would bury the reason in a CI log.
      console.error(`${NAME}: ${error.message}\n${command ? `Run '${NAME} ${name} --help' for its options.` : `\n${MAIN_HELP}`}`);
      return EXIT.usage;
    }
    throw error;
  }
}
