// The command line: run (suites against a target, report written), simulate (the
// simulator on loopback) and proxy (a standalone recording, validating proxy).
import { EXIT, NAME, UsageError } from './args.ts';
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

Run '${NAME} <command> --help' for a command's options.`;

const COMMANDS: Record<string, { run: (args: string[]) => Promise<number>; help: string }> = {
  run: { run, help: RUN_HELP },
  simulate: { run: simulate, help: SIMULATE_HELP },
  proxy: { run: proxy, help: PROXY_HELP },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    console.log(MAIN_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(`unknown command '${name}'`);
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${NAME}: ${error.message}\n\n${command?.help ?? MAIN_HELP}`);
      return EXIT.usage;
    }
    throw error;
  }
}
