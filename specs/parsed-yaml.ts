// The YAML of specs/, parsed once per machine rather than once per process. A conformance run starts
// five processes or more that each load the contract, and its YAML takes a third of a second to parse
// where the same data as JSON takes a few milliseconds. The parse is kept as JSON in the temporary
// folder under a digest of the text, so an edited file is parsed afresh.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const CACHE = join(tmpdir(), 'agent-platform-conformance-yaml');

export function parseSpecYaml(text: string): unknown {
  const file = join(CACHE, `${createHash('sha256').update(text).digest('hex').slice(0, 40)}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // Not parsed on this machine yet (or the cache is unreadable): parse it, and keep it if the folder can be written.
  }
  const value = parseYaml(text) as unknown;
  try {
    mkdirSync(CACHE, { recursive: true });
    // Written aside and renamed: a process reading it at the same time sees all of it or none.
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, JSON.stringify(value));
    renameSync(aside, file);
  } catch {
    // A read-only temporary folder costs speed only.
  }
  return value;
}
