// Issue 13, concurrency: thread creates, copies, deletes and runs sent in overlapping batches to
// an in-process simulator, their dispatch order chosen by fast-check's scheduler. Whatever the
// interleaving, the store stays consistent with a model: ids are unique, a thread reads back as
// the model says, a copy holds its source's state as it was at some point of the batch (its
// messages a prefix of the source's), a refusal with 404 happens only to a thread deleted in the
// same batch, and a deleted thread answers 404 and is gone from search. A failure prints its seed,
// path and the scheduler's order (fast-check's report). The property checks with node:assert: a
// Playwright expect records a step per call, which thousands of checks would make slow.
import { test } from '@playwright/test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Thread } from '../../specs/types/agent-server.ts';
import { Simulator } from '../../simulator/simulator.ts';

type Op = { kind: 'create'; tag: string } | { kind: 'copy' | 'delete' | 'run'; index: number };

/** What the model knows of a live thread: its metadata and the topics of its runs, in applied order. */
interface ModelThread {
  id: string;
  metadata: Record<string, unknown>;
  topics: string[];
}

/** An operation of a batch with its target, chosen among the threads alive when the batch starts. */
interface Planned {
  kind: Op['kind'];
  tag: string;
  target?: ModelThread;
}

interface Answer {
  status: number;
  body: unknown;
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), tag: fc.constantFrom('a', 'b', 'c') }),
  fc.record({ kind: fc.constantFrom('copy' as const, 'delete' as const, 'run' as const), index: fc.nat(7) }),
);

/** The values a thread of the built-in graph holds after runs with these topics (graphs.ts). */
function valuesAfter(topics: string[]): Record<string, unknown> {
  if (topics.length === 0) return {};
  return {
    topic: topics.at(-1),
    messages: topics.flatMap((t) => [
      { role: 'ai', content: `prepared: ${t}` },
      { role: 'ai', content: `echo: ${t}` },
    ]),
  };
}

/** The run topics a thread's values show, in order; throws when the values are not those of such runs. */
function topicsOf(values: Record<string, unknown>): string[] {
  const messages = (values.messages ?? []) as { content: string }[];
  const topics = messages.filter((_, i) => i % 2 === 0).map((m) => m.content.replace(/^prepared: /, ''));
  assert.deepEqual(values, valuesAfter(topics), 'values made of whole runs');
  return topics;
}

test('interleaved creates, copies, deletes and runs keep the thread store consistent with the model', async () => {
  const sim = new Simulator({ seed: 'interleaved', quiet: true });
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await sim.request('agent-server', path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };

  const property = fc.asyncProperty(
    fc.scheduler(),
    fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
    async (s, batches) => {
      sim.reset();
      let alive: ModelThread[] = [];
      const seen = new Set<string>();
      const newId = (id: string) => {
        assert.equal(seen.has(id), false, `id ${id} is new`);
        seen.add(id);
      };

      for (const [b, batch] of batches.entries()) {
        // Targets are fixed when the batch starts: every operation of a batch overlaps the others.
        const planned: Planned[] = batch
          .map((o) => ({
            kind: o.kind,
            tag: o.kind === 'create' ? o.tag : '',
            target: o.kind === 'create' || !alive.length ? undefined : alive[o.index % alive.length],
          }))
          .filter((o) => o.kind === 'create' || o.target !== undefined);
        const send = (o: Planned, i: number): Promise<Answer> => {
          const id = o.target?.id;
          if (o.kind === 'create') return call('POST', '/threads', { metadata: { graph_id: 'agent', tag: o.tag } });
          if (o.kind === 'copy') return call('POST', `/threads/${id}/copy`);
          if (o.kind === 'delete') return call('DELETE', `/threads/${id}`);
          return call('POST', `/threads/${id}/runs/wait`, { assistant_id: 'agent', input: { topic: `b${b}-${i}` } });
        };
        const sent = planned.map((o, i) => s.schedule(Promise.resolve(), `${o.kind} ${o.target?.id ?? ''}`).then(() => send(o, i)));
        const answers = await s.waitFor(Promise.all(sent));

        const deleted = new Set(planned.filter((o, i) => o.kind === 'delete' && answers[i].status === 204).map((o) => o.target!.id));
        const ranOn = new Map<string, string[]>();
        const made: { thread: ModelThread; answered: Thread }[] = [];
        for (const [i, o] of planned.entries()) {
          const { status, body } = answers[i];
          const what = `${o.kind} #${i}${o.target ? ` on ${o.target.id}` : ''}`;
          if (o.kind === 'create') {
            assert.equal(status, 200, what);
            const thread = body as Thread;
            newId(thread.thread_id);
            assert.deepEqual([thread.metadata, thread.values, thread.status], [{ graph_id: 'agent', tag: o.tag }, {}, 'idle'], what);
            made.push({ thread: { id: thread.thread_id, metadata: thread.metadata as Record<string, unknown>, topics: [] }, answered: thread });
            continue;
          }
          const target = o.target!;
          // 404 only for a thread that a delete of this batch removed.
          if (status === 404) {
            assert.equal(deleted.has(target.id), true, `${what}: 404 though no delete of this batch removed the thread`);
            continue;
          }
          if (o.kind === 'delete') {
            assert.equal(status, 204, what);
            continue;
          }
          assert.equal(status, 200, what);
          if (o.kind === 'run') {
            const topic = `b${b}-${i}`;
            assert.equal(topicsOf(body as Record<string, unknown>).at(-1), topic, `${what}: the run's result ends with its own answer`);
            ranOn.set(target.id, [...(ranOn.get(target.id) ?? []), topic]);
            continue;
          }
          const copy = body as Thread;
          newId(copy.thread_id);
          assert.deepEqual(copy.metadata, target.metadata, `${what}: the source's metadata`);
          const topics = topicsOf(copy.values as Record<string, unknown>);
          assert.deepEqual(topics.slice(0, target.topics.length), target.topics, `${what}: the source's state from before the batch`);
          made.push({ thread: { id: copy.thread_id, metadata: target.metadata, topics }, answered: copy });
        }
        // Two deletes of one thread: one removes it, the other finds it gone.
        for (const id of deleted) {
          const answeredDelete = planned.filter((o, i) => o.kind === 'delete' && o.target!.id === id && answers[i].status === 204);
          assert.equal(answeredDelete.length, 1, `deletes of ${id} that answered 204`);
        }

        // Every thread that was alive reads back as the model says; the deleted ones are gone.
        const next: ModelThread[] = [];
        for (const thread of alive) {
          const got = await call('GET', `/threads/${thread.id}`);
          if (deleted.has(thread.id)) {
            assert.equal(got.status, 404, `deleted ${thread.id}`);
            continue;
          }
          assert.equal(got.status, 200, `GET ${thread.id}`);
          const read = got.body as Thread;
          const topics = topicsOf(read.values as Record<string, unknown>);
          const ran = ranOn.get(thread.id) ?? [];
          assert.deepEqual(topics.slice(0, thread.topics.length), thread.topics, `${thread.id}: its state from before the batch`);
          assert.deepEqual([...topics.slice(thread.topics.length)].sort(), [...ran].sort(), `${thread.id}: exactly the runs answered 200 in this batch`);
          assert.deepEqual([read.metadata, read.status], [thread.metadata, 'idle'], thread.id);
          next.push({ ...thread, topics });
        }
        for (const { thread, answered } of made) {
          assert.deepEqual((await call('GET', `/threads/${thread.id}`)).body, answered, `${thread.id} reads back as created or copied`);
          next.push(thread);
        }
        // A copy holds its source's state at one moment of the batch: a prefix of the source's runs.
        for (const [i, o] of planned.entries()) {
          if (o.kind !== 'copy' || answers[i].status !== 200) continue;
          const source = next.find((t) => t.id === o.target!.id);
          const copy = next.find((t) => t.id === (answers[i].body as Thread).thread_id)!;
          if (source) assert.deepEqual(source.topics.slice(0, copy.topics.length), copy.topics, `copy ${copy.id} of ${source.id}: a prefix of the source`);
          else {
            const possible = [...o.target!.topics, ...(ranOn.get(o.target!.id) ?? [])];
            assert.deepEqual(
              copy.topics.filter((t) => !possible.includes(t)),
              [],
              `copy ${copy.id} of the deleted ${o.target!.id}: only its runs`,
            );
          }
        }
        alive = next;
        const found = (await call('POST', '/threads/search', { limit: 1000 })).body as Thread[];
        assert.deepEqual(found.map((t) => t.thread_id).sort(), alive.map((t) => t.id).sort(), `search after batch ${b}`);
      }
    },
  );
  await fc.assert(property, { numRuns: 150 });
});
