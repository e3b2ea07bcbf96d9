// §2.5: trace_id is the root run's id; dotted_order is one segment per run from the root
// down, each its start timestamp in compact form followed by its id, joined by dots.
import fc from 'fast-check';
import { expectStatus } from '../../harness/checks/index.ts';
import { forRule } from '../../harness/checks/attribution.ts';
import { expect, test } from './fixtures.ts';
import type { ApiClient } from '../../harness/client.ts';
import type { Time } from '../../harness/time.ts';
import { assertProperty } from '../../harness/property.ts';
import { baseTime, isoWith, multipartBody, readTraceRun, runParts, runTree, SEGMENT, type TraceRun } from './traces-steps.ts';

/** The checks of spec §2.5 on a run read back, given the tree it was created in. */
async function checkLineage(read: Map<string, TraceRun>, runs: TraceRun[], parents: (number | null)[]): Promise<void> {
  const root = runs[0];
  for (const [i, sent] of runs.entries()) {
    const got = read.get(sent.id)!;
    await forRule('TRACE-TRACE-ID', () => expect(got.trace_id, `trace_id of run ${i} is the root's id`).toBe(root.id));
    const segments = got.dotted_order.split('.');
    const chain: TraceRun[] = [];
    for (let j: number | null = i; j !== null; j = parents[j]) chain.unshift(runs[j]);
    await forRule('TRACE-DOTTED-ORDER-SEGMENT', () => {
      expect(segments.length, `run ${i} has one segment per run from the root down: ${got.dotted_order}`).toBe(chain.length);
      segments.forEach((segment, k) => {
        const m = SEGMENT.exec(segment);
        expect(m, `segment ${k} of run ${i} is YYYYMMDDTHHMMSS[ffffff]Z<uuid>: ${segment}`).not.toBeNull();
        expect(m![3].toLowerCase(), `segment ${k} of run ${i} carries the id of its run`).toBe(chain[k].id);
        expect(m![1], `segment ${k} of run ${i} carries the start time of its run (${chain[k].start_time})`).toBe(
          chain[k].start_time.slice(0, 19).replace(/[-:]/g, ''),
        );
      });
    });
    const parent = parents[i];
    if (parent !== null) {
      const parentOrder = read.get(runs[parent].id)!.dotted_order;
      await forRule('TRACE-DOTTED-ORDER-CHAIN', () =>
        expect(got.dotted_order, `run ${i}'s dotted_order is its parent's then its own segment`).toBe(`${parentOrder}.${segments[segments.length - 1]}`),
      );
    }
  }
}

async function readBack(platform: ApiClient, time: Time, runs: TraceRun[]): Promise<Map<string, TraceRun>> {
  const read = new Map<string, TraceRun>();
  for (const run of runs) {
    read.set(run.id, (await readTraceRun(platform, time, run.id)).json);
  }
  return read;
}

async function postEach(platform: ApiClient, runs: TraceRun[]): Promise<void> {
  for (const { trace_id: _t, dotted_order: _d, ...run } of runs) {
    expectStatus(await platform.post('/runs', { ...run, start_time: isoWith(Date.parse(run.start_time), 3) }), '2xx');
  }
}

const SHAPE: (number | null)[] = [null, 0, 1, 1, 0];

test("a root run's trace_id is its own id and a descendant's is the root's", { tag: '@TRACE-TRACE-ID' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const runs = runTree(traceRunIds, SHAPE, { start: baseTime(conformanceRun), digits: 3 });
  await postEach(platform, runs);
  const read = await readBack(platform, time, runs);
  for (const r of runs) expect(read.get(r.id)!.trace_id, `trace_id of ${r.name}`).toBe(runs[0].id);
});

test('each run contributes one segment: its start timestamp in compact form, then its id', { tag: '@TRACE-DOTTED-ORDER-SEGMENT' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const runs = runTree(traceRunIds, SHAPE, { start: baseTime(conformanceRun), digits: 3 });
  await postEach(platform, runs);
  await checkLineage(await readBack(platform, time, runs), runs, SHAPE);
});

test("a run's dotted_order is its parent's, a dot, and its own segment", { tag: '@TRACE-DOTTED-ORDER-CHAIN' }, async ({
  traceRunIds,
  platform,
  conformanceRun,
  time,
}) => {
  const runs = runTree(traceRunIds, SHAPE, { start: baseTime(conformanceRun), digits: 3 });
  await postEach(platform, runs);
  const read = await readBack(platform, time, runs);
  for (const [i, parent] of SHAPE.entries()) {
    if (parent === null) continue;
    const own = read.get(runs[i].id)!.dotted_order;
    expect(own.startsWith(`${read.get(runs[parent].id)!.dotted_order}.`), `${runs[i].name}: ${own}`).toBe(true);
    expect(own.split('.').length, `${runs[i].name} has one more segment than its parent`).toBe(read.get(runs[parent].id)!.dotted_order.split('.').length + 1);
  }
});

/** A run tree of up to 7 runs: each run's parent is one of the runs before it. */
const trees = fc.array(fc.nat(), { minLength: 0, maxLength: 6 }).map((picks) => [null, ...picks.map((p, i) => p % (i + 1))] as (number | null)[]);

test('for any run tree posted with POST /runs, the service computes trace_id and dotted_order of spec §2.5', {
  tag: ['@TRACE-TRACE-ID', '@TRACE-DOTTED-ORDER-SEGMENT', '@TRACE-DOTTED-ORDER-CHAIN', '@TRACE-CREATE-GENERATES-ORDER'],
}, async ({ traceRunIds: ids, platform, conformanceRun, time }) => {
  let round = 0;
  await assertProperty(
    fc.asyncProperty(trees, fc.integer({ min: 0, max: 86_400_000 }), async (parents, offset) => {
      const runs = runTree(ids, parents, { start: baseTime(conformanceRun) + offset + round++ * 100_000, digits: 3 });
      await forRule('TRACE-CREATE-GENERATES-ORDER', () => postEach(platform, runs));
      await checkLineage(await readBack(platform, time, runs), runs, parents);
    }),
    { numRuns: 15 },
  );
});

test("for any run tree ingested with multipart, in any part order, the caller's trace_id and dotted_order are kept", {
  tag: ['@TRACE-TRACE-ID', '@TRACE-DOTTED-ORDER-SEGMENT', '@TRACE-DOTTED-ORDER-CHAIN', '@TRACE-MULTIPART-CALLER-ORDER'],
}, async ({ traceRunIds: ids, platform, conformanceRun, time }) => {
  let round = 0;
  await assertProperty(
    fc.asyncProperty(trees, fc.constantFrom(0, 3, 6), fc.integer({ min: 0, max: 86_400_000 }), fc.nat(), async (parents, digits, offset, seed) => {
      const runs = runTree(ids, parents, { start: baseTime(conformanceRun) + offset + round++ * 100_000, digits });
      // Parts of one request may come in any order: rotate the runs.
      const order = runs.map((_, i) => runs[(i + seed) % runs.length]);
      const { body, contentType } = multipartBody(order.flatMap((r) => runParts('post', r)));
      expectStatus(await platform.post('/runs/multipart', undefined, { rawBody: body, headers: { 'content-type': contentType } }), '2xx');
      const read = await readBack(platform, time, runs);
      await forRule('TRACE-MULTIPART-CALLER-ORDER', () => {
        for (const r of runs)
          expect([read.get(r.id)!.trace_id, read.get(r.id)!.dotted_order], `${r.name} keeps the caller's lineage`).toEqual([r.trace_id, r.dotted_order]);
      });
      await checkLineage(read, runs, parents);
    }),
    { numRuns: 15 },
  );
});
