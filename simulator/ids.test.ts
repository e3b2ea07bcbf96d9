// Seeded ids: the simulator's determinism rests on them. The same seed must give the same ids on
// every run (a reset replays the same ids), another seed other ids, and generators share no state.
import { expect, test } from '@playwright/test';
import { IdGenerator } from './ids.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const draw = (ids: IdGenerator, n: number) => Array.from({ length: n }, () => ids.uuid());

test('the same seed gives the same sequence of ids', () => {
  expect(draw(new IdGenerator('apc'), 50)).toEqual(draw(new IdGenerator('apc'), 50));
  expect(draw(new IdGenerator(''), 5), 'the empty seed too').toEqual(draw(new IdGenerator(''), 5));
});

test('different seeds give different ids, even seeds one character apart', () => {
  for (const [a, b] of [
    ['seed-a', 'seed-b'],
    ['apc', 'apc '],
    ['apc', 'APC'],
    ['', 'a'],
    ['ab', 'ba'],
  ]) {
    const first = draw(new IdGenerator(a), 20);
    const second = new Set(draw(new IdGenerator(b), 20));
    expect(
      first.filter((id) => second.has(id)),
      `${JSON.stringify(a)} and ${JSON.stringify(b)} share ids`,
    ).toEqual([]);
  }
});

test('every id is a version-4 UUID, and a long sequence never repeats one', () => {
  const ids = draw(new IdGenerator('many'), 5000);
  expect(ids.filter((id) => !V4.test(id))).toEqual([]);
  expect(new Set(ids).size).toBe(ids.length);
});

test('generators share no state: drawing from one does not move another', () => {
  const alone = draw(new IdGenerator('x'), 4);
  const a = new IdGenerator('x');
  const b = new IdGenerator('x');
  const interleaved: string[] = [];
  for (let i = 0; i < 4; i++) {
    interleaved.push(a.uuid());
    b.uuid();
    b.uuid();
  }
  expect(interleaved).toEqual(alone);
});

test('reseeding starts the sequence over, with the current seed or with a new one that then stays', () => {
  const ids = new IdGenerator('first');
  const sequence = draw(ids, 3);
  ids.reseed();
  expect(draw(ids, 3)).toEqual(sequence);
  ids.reseed('second');
  const second = draw(ids, 3);
  expect(second).toEqual(draw(new IdGenerator('second'), 3));
  ids.reseed();
  expect(draw(ids, 3), 'a reseed without a seed keeps the last one given').toEqual(second);
});

test('a restored state draws the ids the stream would have drawn next', () => {
  const ids = new IdGenerator('apc');
  draw(ids, 7);
  const state = ids.state();
  const next = draw(ids, 5);
  const other = new IdGenerator('another seed');
  other.restore(state);
  expect(draw(other, 5)).toEqual(next);
  expect(() => other.restore([1, 2, 3] as never)).toThrow(TypeError);
});
