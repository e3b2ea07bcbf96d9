// The YAML cache: the same data as a fresh parse, from the cache the second time, and an edited text
// parsed afresh.
import { expect, test } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { parseSpecYaml } from './parsed-yaml.ts';

test('a text parses to what yaml gives, the second time too, and an edited text to its own data', () => {
  const text = `id: ${randomUUID()}\nlist: [1, two, {three: null}]\nflag: true\n`;
  expect(parseSpecYaml(text)).toEqual(parseYaml(text));
  expect(parseSpecYaml(text)).toEqual(parseYaml(text));
  const edited = `${text}more: 2\n`;
  expect(parseSpecYaml(edited)).toEqual({ ...(parseYaml(text) as object), more: 2 });
});
