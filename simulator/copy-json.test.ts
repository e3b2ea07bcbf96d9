import { expect, test } from '@playwright/test';
import { copyJson } from './copy-json.ts';

test('a copy of JSON data equals structuredClone of it and shares nothing with the original', () => {
  const original = { a: 1, b: 'x', c: null, d: [1, { e: true }], f: { g: { h: [] } }, u: undefined };
  const copy = copyJson(original);
  expect(copy).toStrictEqual(structuredClone(original));
  copy.d.push(2);
  (copy.f.g as { h: unknown[] }).h.push(1);
  expect(original.d).toHaveLength(2);
  expect(original.f.g.h).toHaveLength(0);
});

test('a "__proto__" key stays an own key, as structuredClone keeps it', () => {
  const copy = copyJson(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
  expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  expect(Object.keys(copy)).toEqual(['__proto__']);
  expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
});

test('what is not JSON data is copied as structuredClone copies it', () => {
  const when = new Date(0);
  const copy = copyJson({ when });
  expect(copy.when).toBeInstanceOf(Date);
  expect(copy.when).not.toBe(when);
  expect(copy.when.getTime()).toBe(0);
});
