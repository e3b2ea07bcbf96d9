// The user's environment variables that a target config names: its API keys and bearer tokens
// (api_key_env, credentials), and the values of templated webhook headers. Secrets stay in the
// environment, where CI keeps them: they are read here, where they are used, never copied into
// the run's options or a report. The run's options travel apart (harness/conformance-options.ts).

/** The value of the variable `name`, or undefined when it is not set. */
export function secret(name: string): string | undefined {
  return process.env[name];
}

/** The whole environment, where a config's `${NAME}` templates are resolved against it. */
export function environment(): NodeJS.ProcessEnv {
  return process.env;
}
