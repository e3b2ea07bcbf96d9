import { expect, test } from '@playwright/test';
import { closest, editDistance, unknownName } from './suggest.ts';

test('edit distance counts insertions, deletions and substitutions', () => {
  expect(editDistance('', '')).toBe(0);
  expect(editDistance('abc', '')).toBe(3);
  expect(editDistance('kitten', 'sitting')).toBe(3);
  expect(editDistance('targett', 'target')).toBe(1);
  expect(editDistance('flaw', 'lawn')).toBe(2);
  expect(editDistance('abc', 'abc')).toBe(0);
});

test('the closest name is suggested only when it is near, and only when it is the one nearest', () => {
  const planes = ['agent-server', 'control-plane', 'platform-api'];
  expect(closest('agent_server', planes)).toBe('agent-server');
  expect(closest('Control-Plane', planes)).toBe('control-plane');
  expect(closest('platfrom-api', planes)).toBe('platform-api');
  expect(closest('moon', planes)).toBeUndefined();
  expect(closest('ab', ['ac', 'ad']), 'a tie suggests nothing').toBeUndefined();
});

test('a word that is a whole part of one name suggests that name, even when another is fewer edits away', () => {
  const simulate = ['base-port', 'host', 'seed', 'clock', 'time-scale', 'run-duration', 'no-admin', 'no-rate-limits', 'strict', 'log-level', 'help'];
  expect(closest('port', simulate), "'host' is two edits from 'port', 'base-port' five").toBe('base-port');
  expect(closest('PORT', simulate)).toBe('base-port');
  expect(closest('duration', simulate)).toBe('run-duration');
  expect(closest('limits', simulate)).toBe('no-rate-limits');
  expect(closest('no', simulate), 'a part of two names suggests neither').toBeUndefined();
  expect(closest('id', ['thread_id', 'assistant_id', 'input']), 'snake_case parts too: a part of two names').toBeUndefined();
  expect(closest('assistant', ['assistant_id', 'input', 'config'])).toBe('assistant_id');
  expect(closest('sed', simulate), 'a typo still gets the nearest name').toBe('seed');
  expect(closest('inptu', ['assistant_id', 'input', 'metadata', 'config', 'stream_mode']), 'a body field typo').toBe('input');
  expect(closest('por', simulate), 'only a whole part: a piece of one is a typo or nothing').toBeUndefined();
});

test('an unknown name lists the valid ones and suggests the nearest', () => {
  expect(unknownName('plane', 'agent_server', ['agent-server', 'control-plane', 'platform-api'])).toBe(
    "unknown plane 'agent_server' (one of agent-server, control-plane, platform-api): did you mean 'agent-server'?",
  );
  expect(unknownName('plane', 'moon', ['agent-server'])).toBe("unknown plane 'moon' (one of agent-server)");
});
