// What a target serves: every operation the spec shows, and of those it does not show the ones its
// config leaves in `not_shown_operations` (all of them when a plane is not named).
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { contract, PLANES } from '../specs/contract.ts';
import { defaultWorkers, resolveTarget, serves } from './target.ts';

test('a target serves every operation the spec shows, and those it does not show unless its config leaves them out', () => {
  const readRun = contract().operation('platform-api', 'readRun');
  const createRun = contract().operation('platform-api', 'createRun');
  expect(serves({}, readRun), 'no declaration: served, as the hosted service does').toBe(true);
  expect(serves({ notShownOperations: { 'agent-server': [] } }, readRun), 'another plane declared').toBe(true);
  expect(serves({ notShownOperations: { 'platform-api': [] } }, readRun)).toBe(false);
  expect(serves({ notShownOperations: { 'platform-api': ['readRun'] } }, readRun)).toBe(true);
  expect(serves({ notShownOperations: { 'platform-api': [] } }, createRun), 'an operation the spec shows').toBe(true);
});

test("docs/reference.md lists each plane's operations the spec does not show, as the contract has them", () => {
  const reference = readFileSync(resolve(import.meta.dirname, '../docs/reference.md'), 'utf8');
  const table = /<!-- not-shown-operations -->\n\| plane [^\n]*\n\|---\|---\|\n([\s\S]*?)<!-- \/not-shown-operations -->/.exec(reference)?.[1];
  const rows = PLANES.map((plane) => {
    const operations = contract()
      .operationsOf(plane)
      .filter((o) => o.notShown);
    return `| ${plane} | ${operations.map((o) => `\`${o.operationId}\` (${o.method} ${o.path})`).join(', ')} |\n`;
  });
  expect(table, 'the table between the not-shown-operations marks').toBe(rows.join(''));
});

test('the default worker count: one per core with partitions, one on another simulator, four at most and no more than the cores elsewhere', () => {
  const other = { kind: 'url' as const, capabilities: [] };
  expect(defaultWorkers(undefined, 8), 'the embedded simulator').toBe(8);
  expect(defaultWorkers({ kind: 'simulator', capabilities: ['partitions'] }, 8)).toBe(8);
  expect(defaultWorkers({ kind: 'simulator', capabilities: ['virtual-clock'] }, 8)).toBe(1);
  expect(defaultWorkers(other, 8)).toBe(4);
  expect(defaultWorkers(other, 2), 'a 2-core machine').toBe(2);
  expect(defaultWorkers(other, 1)).toBe(1);
});

test('a target config names the OAuth providers the target knows (oauth_providers); without the key the suites make ids up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'apc-target-'));
  const config = (extra: string) => {
    const path = join(dir, 'target.yaml');
    writeFileSync(path, `name: t\nplanes:\n  platform-api: http://127.0.0.1:1\n${extra}`);
    return path;
  };
  expect((await resolveTarget(config('oauth_providers: [github, google]\n'))).oauthProviders).toEqual(['github', 'google']);
  expect((await resolveTarget(config(''))).oauthProviders, 'not named: none given').toBeUndefined();
});
