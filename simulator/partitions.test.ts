// Partitions (capability partitions): a request naming one is answered by a platform of its own,
// whose ids and clock follow the seed and the partition's name whatever other partitions do; the
// admin path acts on the partition named; the simulator's own reset forgets them all.
import { expect, test } from '@playwright/test';
import { contract } from '../specs/contract.ts';
import type { Thread } from '../specs/types/agent-server.ts';
import type { ClockReading } from '../specs/types/simulator-admin.ts';
import { Simulator } from './simulator.ts';

const HEADER = contract().partitionHeader.name;

function simulator() {
  const sim = new Simulator({ seed: 'partitions', quiet: true });
  const call = (partition: string | undefined, method: string, path: string, body?: unknown) =>
    sim.request('agent-server', path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(partition ? { [HEADER]: partition } : {}) },
    });
  const json = async <T>(partition: string | undefined, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call(partition, method, path, body);
    expect(res.status, `${method} ${path} in ${partition ?? 'no partition'}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  return { sim, call, json };
}

test('a partition sees only its own data, and its ids do not depend on what other partitions did', async () => {
  const alone = simulator();
  const firstAlone = await alone.json<Thread>('a.spec', 'POST', '/threads', {});

  const busy = simulator();
  // Another partition and the simulator's own platform make threads first.
  await busy.json<Thread>('b.spec', 'POST', '/threads', {});
  await busy.json<Thread>(undefined, 'POST', '/threads', {});
  const firstBusy = await busy.json<Thread>('a.spec', 'POST', '/threads', {});

  expect(firstBusy.thread_id).toBe(firstAlone.thread_id);
  expect((await busy.call('b.spec', 'GET', `/threads/${firstBusy.thread_id}`)).status).toBe(404);
  expect((await busy.call(undefined, 'GET', `/threads/${firstBusy.thread_id}`)).status).toBe(404);
  expect((await busy.call('a.spec', 'GET', `/threads/${firstBusy.thread_id}`)).status).toBe(200);
});

test('the admin path moves the clock of the partition named, and the simulator reset forgets every partition', async () => {
  const { json, call } = simulator();
  const before = await json<ClockReading>('a.spec', 'GET', '/__sim/clock');
  await json('a.spec', 'POST', '/__sim/clock/advance', { ms: 60_000 });
  expect((await json<ClockReading>('a.spec', 'GET', '/__sim/clock')).now).toBe(new Date(Date.parse(before.now) + 60_000).toISOString());
  expect((await json<ClockReading>('b.spec', 'GET', '/__sim/clock')).now).toBe(before.now);
  expect((await json<ClockReading>(undefined, 'GET', '/__sim/clock')).now).toBe(before.now);

  const thread = await json<Thread>('a.spec', 'POST', '/threads', {});
  // A partition's reset is its own: the simulator's data stays.
  const own = await json<Thread>(undefined, 'POST', '/threads', {});
  await json('a.spec', 'POST', '/__sim/reset', {});
  expect((await call(undefined, 'GET', `/threads/${own.thread_id}`)).status).toBe(200);
  expect((await call('a.spec', 'GET', `/threads/${thread.thread_id}`)).status).toBe(404);

  const again = await json<Thread>('a.spec', 'POST', '/threads', {});
  await json(undefined, 'POST', '/__sim/reset', {});
  expect((await call('a.spec', 'GET', `/threads/${again.thread_id}`)).status).toBe(404);
  expect((await json<ClockReading>('a.spec', 'GET', '/__sim/clock')).now).toBe(before.now);
});

test('a partition name longer than the contract allows is refused in the plane error shape', async () => {
  const { call } = simulator();
  const res = await call('x'.repeat(contract().partitionHeader.maxLength + 1), 'GET', '/threads/none');
  expect(res.status).toBe(400);
  expect(((await res.json()) as { detail: string }).detail).toContain(HEADER);
});

test('a simulator without the admin path has no partitions', async () => {
  const sim = new Simulator({ seed: 'partitions', quiet: true, admin: false });
  const created = (await (
    await sim.request('agent-server', '/threads', { method: 'POST', body: '{}', headers: { [HEADER]: 'a.spec', 'content-type': 'application/json' } })
  ).json()) as Thread;
  expect((await sim.request('agent-server', `/threads/${created.thread_id}`)).status).toBe(200);
});
