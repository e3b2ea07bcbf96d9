// Draws rules from specs/rules.yaml at random with a stated seed, for the three-hop figure (issue 24):
// for each, the hits of one grep for its id in suites/ (hop 2, the tagged test) and in the
// simulator and the contract it implements (hop 3, the implementing code). A test generated per row of
// specs/rate-limits.yaml is tagged at run time, so no grep finds it: `npm run rule -- ID` does.
//   node scripts/draw-rules.mjs [seed] [count]      (defaults: seed 24, count 6)
// Same seed, same rules, whatever the code around them becomes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const [seedText = '24', countText = '6'] = process.argv.slice(2);
const ids = parse(readFileSync(new URL('../specs/rules.yaml', import.meta.url), 'utf8')).rules.map((r) => r.id);

/** mulberry32: a small seeded generator, so the draw is the same on every machine. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = generator(Number(seedText));
const shuffled = [...ids];
for (let i = shuffled.length - 1; i > 0; i--) {
  const j = Math.floor(next() * (i + 1));
  [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
}

/** The id standing alone: not the start of a longer id (ASSISTANT-SEARCH is not ASSISTANT-SEARCH-LIMIT). */
const alone = (id) => `(?<![A-Za-z0-9-])${id}(?![A-Za-z0-9-])`;

/** One grep: `git grep -nP <id alone> -- <paths>`, its hits as lines. */
function grep(id, paths) {
  try {
    return execFileSync('git', ['grep', '-nP', alone(id), '--', ...paths], { encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return []; // git grep exits 1 when nothing matches
  }
}

console.log(`seed ${seedText}, ${countText} of ${ids.length} rules`);
for (const id of shuffled.slice(0, Number(countText))) {
  console.log(`\n${id}`);
  console.log(`  test:  git grep -nP '${alone(id)}' -- suites`);
  const tests = grep(id, ['suites']);
  for (const hit of tests) console.log(`    ${hit}`);
  if (tests.length === 0)
    console.log(`    (no test spells it: a generated test is tagged at run time; npm run rule -- ${id} lists its tests, or why it has none)`);
  console.log(`  code:  git grep -nP '${alone(id)}' -- simulator specs/openapi specs/rate-limits.yaml ':!*.test.ts'`);
  for (const hit of grep(id, ['simulator', 'specs/openapi', 'specs/rate-limits.yaml', ':!*.test.ts'])) console.log(`    ${hit}`);
}
