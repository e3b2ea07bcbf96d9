// §8 is transcribed twice: specs/rate-limits.yaml, which the simulator runs, and specs/rate-limits.examples.yaml,
// written by hand from the spec with example requests. Each row of the one is checked against the other (values,
// identity, method) and each example against the simulator's matching, so that a slip in either transcription
// fails here; tests that build their requests from rate-limits.yaml itself cannot see one.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { parse as parseYaml } from 'yaml';
import { contract, type RateLimitRow } from '../specs/contract.ts';
import { VirtualClock } from './clock.ts';
import { RateLimiter, type RateLimitRequest, type Region } from './rate-limit.ts';

interface ExampleRow {
  rule: string;
  match: string;
  identity: string;
  limit: string;
  category: string;
  method: string;
  counted: string[];
  not_counted: string[];
}

interface Examples {
  version: 1;
  uuid: string;
  rows: ExampleRow[];
  exactly: { request: string; rules: string[] }[];
}

const examples = parseYaml(readFileSync(new URL('../specs/rate-limits.examples.yaml', import.meta.url), 'utf8')) as Examples;
const table = contract().rateLimits;

/** The spec's Identity key cells. */
const IDENTITY: Record<string, RateLimitRow['identity']> = { IP: 'ip', 'x-api-key': 'api-key', 'x-user-id + IP': 'user-id+ip' };

/** A Limit cell, "2000 / 10" or "10000 / 60 (US), 2000 / 60 (EU)": the limit in each region and the interval. */
function parseLimit(cell: string): { us: number; eu: number; interval: number } {
  const same = /^(\d+) \/ (\d+)$/.exec(cell);
  if (same) return { us: Number(same[1]), eu: Number(same[1]), interval: Number(same[2]) };
  const two = /^(\d+) \/ (\d+) \(US\), (\d+) \/ (\d+) \(EU\)$/.exec(cell);
  if (!two || two[2] !== two[4]) throw new Error(`rate-limits.examples.yaml: cannot read the limit '${cell}'`);
  return { us: Number(two[1]), eu: Number(two[3]), interval: Number(two[2]) };
}

/** "POST /runs/query +key +user" as a request from the one client IP of the examples. */
function request(example: string): RateLimitRequest {
  const [method, path, ...flags] = example.split(' ');
  if (!/^[A-Z]+$/.test(method) || !path?.startsWith('/') || flags.some((f) => f !== '+key' && f !== '+user')) {
    throw new Error(`rate-limits.examples.yaml: cannot read the request '${example}'`);
  }
  const headers: Record<string, string> = {};
  if (flags.includes('+key')) headers['x-api-key'] = 'example-key';
  if (flags.includes('+user')) headers['x-user-id'] = 'example-user';
  return { method, path: path.replaceAll('{uuid}', examples.uuid), headers, ip: '198.51.100.7' };
}

/** The identity an example carries when it carries one at most. */
function soleIdentity(example: string): RateLimitRow['identity'] | undefined {
  const flags = example.split(' ').slice(2);
  if (flags.length === 0) return 'ip';
  if (flags.length > 1) return undefined;
  return flags[0] === '+key' ? 'api-key' : 'user-id+ip';
}

function limiter(region: Region): RateLimiter {
  return new RateLimiter(table, region, new VirtualClock(0));
}

/** The rules of the rows that count a request, each once, sorted. */
function rulesCounting(l: RateLimiter, example: string): string[] {
  return [...new Set(l.rowsFor(request(example)).map((r) => r.rule))].sort();
}

test('the examples transcribe the 29 rows of §8, and rate-limits.yaml has exactly those rows', () => {
  const rules = examples.rows.map((r) => r.rule);
  expect(rules).toHaveLength(29);
  expect(new Set(rules).size, 'one entry per row').toBe(29);
  expect([...new Set(table.map((r) => r.rule))].sort()).toEqual([...rules].sort());
});

for (const row of examples.rows) {
  test(`${row.rule}: ${row.match} | ${row.identity} | ${row.limit}`, async () => {
    const entries = table.filter((r) => r.rule === row.rule);
    const { us, eu, interval } = parseLimit(row.limit);
    const identity = IDENTITY[row.identity];
    expect(identity, `identity cell '${row.identity}'`).toBeDefined();

    await test.step('rate-limits.yaml gives the row the values, identity and method §8 does', () => {
      expect(entries.length, `rate-limits.yaml has an entry for ${row.rule}`).toBeGreaterThan(0);
      for (const e of entries) {
        expect.soft({ category: e.category, identity: e.identity, limit: e.limit, interval: e.interval_seconds }, e.id).toEqual({
          category: row.category,
          identity,
          limit: { us, eu },
          interval,
        });
        // An entry matching on a method alone is one alternative of its row (OPTIONS, in the first); the examples test it.
        if (e.match.paths || e.match.requires) expect.soft(e.match.methods, `${e.id}: methods`).toEqual(row.method === 'any' ? undefined : [row.method]);
      }
    });

    await test.step('the simulator counts the requests the row names, and not the others', () => {
      const l = limiter('us');
      for (const example of row.counted) expect.soft(rulesCounting(l, example), `${example} must be counted by ${row.rule}`).toContain(row.rule);
      for (const example of row.not_counted) expect.soft(rulesCounting(l, example), `${example} must not be counted by ${row.rule}`).not.toContain(row.rule);
    });

    await test.step('its requests fill one window: the limit-th is admitted and the next refused, in each region', () => {
      const own = row.counted.filter((example) => soleIdentity(example) === identity);
      expect(own.length, `some counted example carries ${row.identity} alone`).toBeGreaterThan(0);
      for (const region of ['us', 'eu'] as const) {
        const limit = region === 'us' ? us : eu;
        const l = limiter(region);
        let admitted = 0;
        for (let i = 0; i < limit; i++) if (l.admit(request(own[i % own.length])).admitted) admitted++;
        expect.soft(admitted, `${region}: the first ${limit} of ${own.join(', ')}, in turn, must be admitted`).toBe(limit);
        const next = own[limit % own.length];
        expect
          .soft(l.admit(request(next)), `${region}: ${next}, request ${limit + 1}, must be refused for ${interval} s`)
          .toEqual(expect.objectContaining({ admitted: false, retryAfterSeconds: interval }));
      }
    });
  });
}

test('the complete set of rows that count a request (RATE-COMBINE)', () => {
  const l = limiter('us');
  for (const { request: example, rules } of examples.exactly) {
    expect.soft(rulesCounting(l, example), `the rows counting ${example}`).toEqual([...rules].sort());
  }
});
