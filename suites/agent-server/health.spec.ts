// The agent server's health check: not in the spec's tables (§4.5), served by the service (GET /ok).
import { expect, test } from '../../harness/fixtures.ts';
import { expectStatus } from '../../harness/checks/index.ts';

test('GET /ok answers {ok: true} while the server is up', { tag: '@SERVER-OK' }, async ({ agent }) => {
  const res = await agent.get<{ ok?: unknown }>('/ok');
  expectStatus(res, 200);
  expect(res.json?.ok, res.describe('ok')).toBe(true);
});
