// The locator of the third hop finds the places a rule is named at its code, on the line it stands on.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { commentsOf, namedAtCode } from './rule-locations.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** The text of line `place` (`file:line`, what follows ignored) of the repository. */
function lineAt(place: string): string {
  const [, file, line] = /^([^:]+):(\d+)/.exec(place)!;
  return readFileSync(join(ROOT, file), 'utf8').split('\n')[Number(line) - 1];
}

test('a comment counts directly above code or on it, not as a file header, cut off by a blank line, nor as a list', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'rule-locations-')), 'sample.ts');
  writeFileSync(
    file,
    [
      '// Header naming HEADER-RULE.',
      "import { x } from './x.ts';",
      '',
      '/** ABOVE-RULE. */',
      'export function f() {',
      '  return 1; // ON-RULE',
      '}',
      '// CUT-RULE',
      '',
      '// A-ONE A-TWO A-THREE A-FOUR A-FIVE A-SIX A-SEVEN',
      'const y = 2;',
    ].join('\n'),
  );
  const counted = commentsOf(file).filter((c) => c.notAtCode === undefined);
  expect(counted.map((c) => [c.line, c.ids])).toEqual([
    [4, ['ABOVE-RULE']],
    [6, ['ON-RULE']],
  ]);
  expect(commentsOf(file).map((c) => c.notAtCode)).toEqual(['file header', undefined, undefined, 'not directly above code', 'a list of 7 ids']);
});

test('a rate-limit row, an OpenAPI annotation and a comment at code are found on their line', () => {
  const named = namedAtCode();
  const [row] = named.get('RATE-GENERATION-USER-IP')!;
  expect(row).toMatch(/^specs\/rate-limits\.yaml:\d+ \(row generate-user-ip\)$/);
  expect(lineAt(row).trim()).toBe('rule: RATE-GENERATION-USER-IP');
  const annotation = named.get('AUTHN-REQ-PROVIDER')!.find((place) => place.startsWith('specs/openapi/platform-api.yaml:'));
  expect(lineAt(annotation!)).toContain('x-rule: AUTHN-REQ-PROVIDER');
  const code = named.get('THREAD-GET-UNKNOWN-404')!;
  expect(code.every((place) => place.startsWith('simulator/') && !place.includes('.test.ts'))).toBe(true);
  expect(lineAt(code[0])).toContain('THREAD-GET-UNKNOWN-404');
});
