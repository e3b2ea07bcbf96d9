import { expect, test } from '@playwright/test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './args.ts';
import { publish, stagingFolder } from './report-folder.ts';

/** A folder holding `files` (name → text). */
function folder(files: Record<string, string>, at = mkdtempSync(join(tmpdir(), 'apc-folder-'))): string {
  mkdirSync(at, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(at, name), text);
  return at;
}

const contents = (dir: string) => Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));

test('a finished run replaces the report files of the earlier one, keeps the user files, and leaves no staging folder', () => {
  const out = folder({ 'report.json': 'old', 'exchanges.har': 'old', 'durations.json': 'old', 'notes.txt': 'mine' });
  const staging = stagingFolder(out);
  expect(join(staging, '..'), 'beside --out, so that a rename moves the files').toBe(join(out, '..'));
  folder({ 'report.json': 'new', 'summary.md': 'new' }, staging);
  expect(contents(out)['report.json'], 'the earlier report stands while the run runs').toBe('old');
  publish(staging, out);
  expect(contents(out)).toEqual({ 'report.json': 'new', 'summary.md': 'new', 'notes.txt': 'mine' });
  expect(existsSync(staging)).toBe(false);
});

test('a command that wrote no report.json replaces nothing', () => {
  const out = folder({ 'report.json': 'old', 'exchanges.har': 'old' });
  const staging = stagingFolder(out);
  folder({ 'exchanges.har': 'half' }, staging);
  publish(staging, out);
  expect(contents(out)).toEqual({ 'report.json': 'old', 'exchanges.har': 'old' });
  expect(existsSync(staging)).toBe(false);
});

test('a new --out is made at the end; one that cannot be written is a usage error before any work', () => {
  const parent = mkdtempSync(join(tmpdir(), 'apc-folder-'));
  const out = join(parent, 'a', 'report');
  const staging = stagingFolder(out);
  expect(existsSync(out), 'nothing in --out before the run ends').toBe(false);
  folder({ 'report.json': 'new' }, staging);
  publish(staging, out);
  expect(contents(out)).toEqual({ 'report.json': 'new' });
  const file = join(parent, 'a-file');
  writeFileSync(file, '');
  expect(() => stagingFolder(join(file, 'report'))).toThrow(UsageError);
  if (process.getuid?.() !== 0) {
    const locked = folder({});
    chmodSync(locked, 0o500);
    expect(() => stagingFolder(locked)).toThrow(/--out: cannot write to/);
  }
});
