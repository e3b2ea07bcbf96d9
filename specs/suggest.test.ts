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

test('an unknown name lists the valid ones and suggests the nearest', () => {
  expect(unknownName('plane', 'agent_server', ['agent-server', 'control-plane', 'platform-api'])).toBe(
    "unknown plane 'agent_server' (one of agent-server, control-plane, platform-api): did you mean 'agent-server'?",
  );
  expect(unknownName('plane', 'moon', ['agent-server'])).toBe("unknown plane 'moon' (one of agent-server)");
});
