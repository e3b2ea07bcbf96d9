// What each option of a simulator's start takes, checked alike for both ways of starting one:
// `simulate` (cli/simulate.ts) reads them from its command line, `startSimulator`
// (start-simulator.ts) from a client's code, where plain JavaScript brings no types. A value an
// option cannot take is refused before anything listens, in one wording: the option as the caller
// names it (--time-scale, timeScale), what it takes, and what it got.
import { contract, ENDPOINTS } from '../specs/contract.ts';
import { unknownName } from '../specs/suggest.ts';
import { isLogLevel, LOG_LEVELS } from './log.ts';
import type { StartOptions } from './start-simulator.ts';

/** What an option takes: said in a refusal, and the test of a value. */
interface Takes {
  what: string;
  accepts(value: unknown): boolean;
}

const text: Takes = { what: 'a string', accepts: (value) => typeof value === 'string' };
const flag: Takes = { what: 'true or false', accepts: (value) => typeof value === 'boolean' };
const whole = (min: number, max: number): Takes => ({
  what: `a whole number from ${min} to ${max}`,
  accepts: (value) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max,
});
const port = whole(0, 65_535);

/** Every option a simulator starts with, but those made of others (ports, state, env). */
const TAKES = {
  seed: text,
  clock: { what: 'real or virtual', accepts: (value) => value === 'real' || value === 'virtual' },
  timeScale: { what: 'a positive number', accepts: (value) => typeof value === 'number' && Number.isFinite(value) && value > 0 },
  runDurationMs: whole(0, Number.MAX_SAFE_INTEGER),
  host: text,
  rateLimits: flag,
  config: text,
  strict: flag,
  spec: { what: "'all' or 'only'", accepts: (value) => value === 'all' || value === 'only' },
  logLevel: { what: `one of ${LOG_LEVELS.join(', ')}`, accepts: isLogLevel },
} satisfies Record<Exclude<keyof StartOptions, 'ports' | 'state' | 'env'>, Takes>;

/** An option whose value is one thing, not made of others. */
export type StartOption = keyof typeof TAKES;

/**
 * `--time-scale must be a positive number, got '0'`: why `option`, named `name` where it was
 * given, cannot take `value` (`given` is how the caller wrote it, when it is not the value);
 * undefined when it can, or when it was not given.
 */
export function refusal(option: StartOption, name: string, value: unknown, given: unknown = value): string | undefined {
  const takes: Takes = TAKES[option];
  return value === undefined || takes.accepts(value) ? undefined : `${name} must be ${takes.what}, got ${shown(given)}`;
}

/** The start options of a client's code, checked: a TypeError naming the first option that cannot take its value. */
export function checkStartOptions(options: unknown): asserts options is StartOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`startSimulator: the options must be an object, got ${shown(options)}`);
  const given = options as Record<string, unknown>;
  const why = Object.keys(given)
    .map((name) => optionRefusal(name, given[name]))
    .find((refused) => refused !== undefined);
  if (why) throw new TypeError(`startSimulator: ${why}`);
  if (given.timeScale !== undefined && given.clock === 'virtual') throw new TypeError("startSimulator: timeScale needs clock 'real'");
}

function optionRefusal(name: string, value: unknown): string | undefined {
  if (name === 'ports') return portsRefusal(value);
  if (name === 'state') return stateRefusal(value);
  if (name === 'env') return envRefusal(value);
  if (!Object.hasOwn(TAKES, name)) return unknownName('option', name, [...Object.keys(TAKES), 'ports', 'state', 'env']);
  return refusal(name as StartOption, name, value);
}

function portsRefusal(ports: unknown): string | undefined {
  if (ports === undefined) return undefined;
  if (typeof ports !== 'object' || ports === null || Array.isArray(ports)) return `ports must be an object of a port per plane, got ${shown(ports)}`;
  for (const [plane, value] of Object.entries(ports)) {
    if (!(ENDPOINTS as readonly string[]).includes(plane)) return `ports: ${unknownName('plane', plane, ENDPOINTS)}`;
    if (!port.accepts(value)) return `ports['${plane}'] must be ${port.what}, got ${shown(value)}`;
  }
  return undefined;
}

/** The variables a configuration's templates read: names and string values, as `process.env` holds them. */
function envRefusal(env: unknown): string | undefined {
  if (env === undefined) return undefined;
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return `env must be an object of variables (process.env), got ${shown(env)}`;
  const [name, value] = Object.entries(env).find(([, value]) => value !== undefined && typeof value !== 'string') ?? [];
  return name === undefined ? undefined : `env.${name} must be a string, got ${shown(value)}`;
}

/** A snapshot is what GET /__sim/snapshot answers; one that passes its schema but does not load is refused when restored. */
function stateRefusal(state: unknown): string | undefined {
  if (state === undefined) return undefined;
  const violations = contract().validateSchema('simulator-admin', 'Snapshot', state);
  if (violations.length === 0) return undefined;
  return `state must be a snapshot (what getSnapshot() answers): ${violations.map((v) => `${v.at || '/'} ${v.message}`).join('; ')}`;
}

/** A value as a refusal quotes it: a string in quotes, an object or array as JSON, anything else as JavaScript writes it. */
function shown(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
