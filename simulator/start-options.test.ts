import { expect, test } from '@playwright/test';
import { checkStartOptions, refusal } from './start-options.ts';

const refused = (options: unknown) => {
  try {
    checkStartOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as TypeError).message;
  }
  return undefined;
};

test('options from plain JavaScript: each value an option cannot take is refused, naming the option and what it takes', () => {
  expect(refused({ clock: 'fake' })).toBe("startSimulator: clock must be real or virtual, got 'fake'");
  expect(refused({ runDurationMs: -1 })).toBe('startSimulator: runDurationMs must be a whole number from 0 to 9007199254740991, got -1');
  expect(refused({ runDurationMs: 1.5 })).toMatch(/runDurationMs must be a whole number/);
  expect(refused({ timeScale: 0 })).toBe('startSimulator: timeScale must be a positive number, got 0');
  expect(refused({ timeScale: '60' }), 'a number as text is not a number').toBe("startSimulator: timeScale must be a positive number, got '60'");
  expect(refused({ timeScale: Number.POSITIVE_INFINITY })).toBe('startSimulator: timeScale must be a positive number, got Infinity');
  expect(refused({ logLevel: 'verbose' })).toBe("startSimulator: logLevel must be one of error, warn, info, debug, got 'verbose'");
  expect(refused({ seed: 1 })).toBe('startSimulator: seed must be a string, got 1');
  expect(refused({ strict: 'yes' })).toBe("startSimulator: strict must be true or false, got 'yes'");
  expect(refused({ host: null })).toBe('startSimulator: host must be a string, got null');
  expect(refused({ clock: 'virtual', timeScale: 2 })).toBe("startSimulator: timeScale needs clock 'real'");
  expect(refused({ ports: [4100] })).toBe('startSimulator: ports must be an object of a port per plane, got [4100]');
  expect(refused('virtual')).toBe("startSimulator: the options must be an object, got 'virtual'");
});

test('ports: a whole number from 0 to 65535 per plane the simulator has', () => {
  expect(refused({ ports: { 'agent-server': 65_536 } })).toBe("startSimulator: ports['agent-server'] must be a whole number from 0 to 65535, got 65536");
  expect(refused({ ports: { 'agent-server': '4100' } })).toMatch(/ports\['agent-server'\] must be a whole number from 0 to 65535, got '4100'/);
  expect(refused({ ports: { agent_server: 4100 } })).toBe(
    "startSimulator: ports: unknown plane 'agent_server' (one of agent-server, control-plane, platform-api, platform-api-eu): did you mean 'agent-server'?",
  );
  expect(refused({ ports: 4100 })).toBe('startSimulator: ports must be an object of a port per plane, got 4100');
  expect(refused({ ports: { 'agent-server': 0, 'platform-api': 65_535 } })).toBeUndefined();
});

test('env: variables with string values, as process.env holds them', () => {
  expect(refused({ env: 'A=1' })).toBe("startSimulator: env must be an object of variables (process.env), got 'A=1'");
  expect(refused({ env: { A: 1 } })).toBe('startSimulator: env.A must be a string, got 1');
  expect(refused({ env: { A: '1', B: undefined } })).toBeUndefined();
});

test('an option it does not know is refused with the one meant; the valid options pass', () => {
  expect(refused({ clok: 'virtual' })).toMatch(/^startSimulator: unknown option 'clok' \(one of seed, clock, .*\): did you mean 'clock'\?$/);
  expect(refused({ port: 4100 }), 'a typo').toMatch(/did you mean 'ports'\?$/);
  expect(
    refused({
      seed: 's',
      clock: 'real',
      timeScale: 60,
      runDurationMs: 0,
      host: '127.0.0.1',
      rateLimits: false,
      strict: true,
      logLevel: 'debug',
      config: 'x.yaml',
    }),
  ).toBeUndefined();
  expect(refused({ seed: undefined }), 'undefined is an option not given').toBeUndefined();
});

test('a state that is not a snapshot is refused as the state option, with what its schema says', () => {
  expect(refused({ state: { version: 1 } })).toBe(
    "startSimulator: state must be a snapshot (what getSnapshot() answers): / must have required property 'seed'; / must have required property 'clock'; / must have required property 'ids'; / must have required property 'planes'",
  );
});

test('the command line gets the same check, in its own names: the text as given, the value as read', () => {
  expect(refusal('timeScale', '--time-scale', Number('0'), '0')).toBe("--time-scale must be a positive number, got '0'");
  expect(refusal('runDurationMs', '--run-duration', Number('abc'), 'abc')).toBe("--run-duration must be a whole number from 0 to 9007199254740991, got 'abc'");
  expect(refusal('clock', '--clock', 'real')).toBeUndefined();
  expect(refusal('clock', '--clock', undefined), 'not given').toBeUndefined();
});
