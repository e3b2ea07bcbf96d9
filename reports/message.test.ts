import { expect, test } from '@playwright/test';
import { MAX_MESSAGE, wholeMessage } from './message.ts';

test('a message is kept whole, line breaks included', () => {
  const text = 'POST /threads answered 200 {\n  "thread_id": "t-1"\n}\n\nExpected: "idle"\n';
  expect(wholeMessage(text)).toBe(text.trimEnd());
});

test('a long message is cut with a marker saying how much was cut', () => {
  const text = 'x'.repeat(MAX_MESSAGE + 123);
  const shown = wholeMessage(text);
  expect(shown.startsWith('x'.repeat(MAX_MESSAGE))).toBe(true);
  expect(shown).toContain('[… 123 more characters cut; the whole message is in report.json]');
});

test('a cut falls at a line end when one is near the limit', () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'y'.repeat(40)}`);
  const text = lines.join('\n');
  const shown = wholeMessage(text, 1000);
  const kept = shown.split('\n').slice(0, -1);
  expect(
    kept.every((line) => lines.includes(line)),
    'no line cut in its middle',
  ).toBe(true);
  const cut = text.length - kept.join('\n').length;
  expect(shown.split('\n').at(-1)).toBe(`[… ${cut} more characters cut; the whole message is in report.json]`);
});
