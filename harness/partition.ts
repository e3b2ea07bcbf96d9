// Partitions (capability partitions): on a target that offers them, such as the simulator, each
// test's requests name a partition of its own, and see a platform of their own, seeded with the
// run's seed and the test. Tests then run on any number of workers, in any order, alone or with
// all others, and the same seed still gives them the same ids, clock and data: the same report.
import { createHash } from 'node:crypto';
import { contract } from '../specs/contract.ts';
import type { ConformanceRun } from './conformance-run.ts';

/** Whose requests these are: a test (or a step it shares with others), as Playwright's TestInfo names it. */
export interface Attribution {
  /** The test id (or a shared step's id) the recording proxy files the exchanges under. */
  testId: string;
  /** The spec file's path (TestInfo.file). */
  file: string;
  /** The test's titles, from its file down (TestInfo.titlePath). */
  titlePath: string[];
}

/**
 * The partition of a test's requests: its spec file's path below suites/, without its extension
 * (the same from the sources and from the built package), and a digest of its titles; none on a
 * target without partitions.
 */
export function partitionOf(conformanceRun: ConformanceRun, by: Attribution): string | undefined {
  if (!conformanceRun.target.capabilities.includes('partitions')) return undefined;
  const file = specFileOf(by.file);
  // The first title is the file's name, which differs between the sources and the package.
  const test = createHash('sha256').update(by.titlePath.slice(1).join('\u0000')).digest('hex').slice(0, 12);
  return `${file}#${test}`;
}

/** A spec file as the suites name it: its path below suites/, without its extension (the same from the sources and from the built package). */
export function specFileOf(file: string): string {
  const path = file.replaceAll('\\', '/');
  const below = path.lastIndexOf('/suites/');
  return (below < 0 ? path : path.slice(below + '/suites/'.length)).replace(/\.spec\.[cm]?[jt]s$/, '');
}

/** The header naming a test's partition, for a request sent past the suites' clients; none without partitions. */
export function partitionHeaders(conformanceRun: ConformanceRun, by: Attribution): Record<string, string> {
  const partition = partitionOf(conformanceRun, by);
  return partition === undefined ? {} : { [contract().partitionHeader.name]: partition };
}
