import { expect, test } from '@playwright/test';
import { inCaretRange } from './quickstarts.ts';

test('a caret range holds the same major from its floor up, or below 1.0 the same minor', () => {
  expect(['2.0.0', '2.3.1', '1.15.0', '3.0.0', '2.0'].map((v) => inCaretRange('^2.0.0', v))).toEqual([true, true, false, false, false]);
  expect(['0.12.0', '0.12.9', '0.13.0', '0.11.9'].map((v) => inCaretRange('^0.12.0', v))).toEqual([true, true, false, false]);
  expect(['4.1.12', '4.2.0', '4.1.11'].map((v) => inCaretRange('^4.1.12', v))).toEqual([true, true, false]);
  expect(inCaretRange('~2.0.0', '2.0.0')).toBe(false);
});
