// The expectations files cite the spec's sections, as the report does: a section no rule of the
// catalogue is in (a citation of another document, or a typo) is refused when the file loads.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadExpectations, unknownSections } from './expectations.ts';

const SHIPPED = join(import.meta.dirname, '..', 'expectations');

test('a section the catalogue does not know is found, one the catalogue knows is not', () => {
  expect(unknownSections('see §4.5, §6a and §2.10; § 7 too')).toEqual([]);
  expect(unknownSections('(§5 Threads, §13.6; §4.5)')).toEqual(['13.6']);
  expect(unknownSections('§4.9 and §4.9 again')).toEqual(['4.9']);
});

test('every expectations file shipped loads: its rules are in the catalogue and its sections in the spec', () => {
  const files = readdirSync(SHIPPED).filter((f) => f.endsWith('.yaml'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) expect(() => loadExpectations(join(SHIPPED, file)), file).not.toThrow();
});

test('an expectations file citing a section of another document is refused, naming it', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'apc-expect-')), 'e.yaml');
  writeFileSync(file, 'target: t\nexpected:\n  - { rule: THREAD-GET, verdict: fail, reason: "answers 500 (§13.6)" }\n');
  expect(() => loadExpectations(file)).toThrow(/cites sections the spec does not have \(specs\/rules.yaml gives each rule's section\): §13\.6$/);
});

test('an expectations file that lists nothing yet expects nothing: empty, only comments, or `expected:` with its entries commented out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apc-expect-'));
  const files = {
    'empty.yaml': '',
    'comments.yaml': '# none yet\n',
    'bare.yaml': 'target: staging\nexpected:\n#  - { rule: THREAD-GET, verdict: fail, reason: x }\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  expect(loadExpectations(join(dir, 'empty.yaml'))).toEqual({ target: join(dir, 'empty.yaml'), expected: [] });
  expect(loadExpectations(join(dir, 'comments.yaml'))).toEqual({ target: join(dir, 'comments.yaml'), expected: [] });
  expect(loadExpectations(join(dir, 'bare.yaml'))).toEqual({ target: 'staging', expected: [] });
  // What is there is still checked: a misspelt key leaves the list the schema requires missing.
  writeFileSync(join(dir, 'typo.yaml'), 'target: staging\nexpectd:\n');
  expect(() => loadExpectations(join(dir, 'typo.yaml'))).toThrow(/must have required property 'expected'/);
});
