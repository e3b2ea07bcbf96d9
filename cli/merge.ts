// `merge <dir>... --out <dir>`: the report folders of a run's shards joined into one.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadReport, ReportError } from '../reports/load.ts';
import { mergedExchangeId, MergeError, mergeReports } from '../reports/merge.ts';
import { writeReport } from '../reports/write.ts';
import { harText } from '../harness/proxy/har.ts';
import { addDurations, DURATIONS_FILE, readDurations, writeDurations } from '../reports/durations.ts';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { EXIT, NAME, parseWithPositionals, UsageError } from './args.ts';

const MERGE_HELP = `Usage: ${NAME} merge <report folder>... --out <dir>

Joins the report folders of the shards of one run (run --shard i/n on n machines) into one
complete report folder: report.json, junit.xml, summary.md, report.html, exchanges.har and
durations.json. Every rule gets the tests of every shard, and the run's outcome is decided anew.
A shard that stopped before any test (its target was not ready) leaves its rules not-run, and
the merged run exits 2 with its reason.

Options:
  --out <dir>           the merged report folder (required)
  --allow-partial       merge an incomplete set of shards: the missing shards' rules are
                        not-run, and every output says the report is partial
  -h, --help            this help

Exit codes: the merged run's, as 'run' would have exited (0, 1, 2, 3 or 130); 2 also for a
usage error, reports that do not belong together, or a set of shards with one missing or
given twice.`;

interface Har {
  log: { entries: { _id: string }[]; [key: string]: unknown };
}

export async function merge(args: string[]): Promise<number> {
  const { values, positionals } = parseWithPositionals(args, { out: { type: 'string' }, 'allow-partial': { type: 'boolean' } }, 1);
  if (values.help) {
    console.log(MERGE_HELP);
    return EXIT.ok;
  }
  if (!values.out) throw new UsageError('--out <dir> is required');
  let merged: ConformanceReport | undefined;
  try {
    merged = mergeReports(
      positionals.map((dir) => ({ name: dir, report: loadReport(dir) })),
      { allowPartial: values['allow-partial'] === true },
    );
  } catch (error) {
    if (error instanceof ReportError || error instanceof MergeError) throw new UsageError(error.message);
    throw error;
  }
  const out = resolve(values.out as string);
  writeReport(out, merged);
  const hars = positionals.map((dir) => join(dir, 'exchanges.har')).filter((file) => existsSync(file));
  if (hars.length > 0) {
    const logs = hars.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Har);
    const entries = logs.flatMap((har, shard) => har.log.entries.map((entry) => ({ ...entry, _id: mergedExchangeId(shard, entry._id) })));
    writeFileSync(join(out, 'exchanges.har'), harText({ log: { ...logs[0].log, entries } }));
  }
  // The shards' durations together, so that a later run can balance its shards by them (run --durations).
  const durations = positionals.filter((dir) => existsSync(join(dir, DURATIONS_FILE))).map((dir) => readDurations(dir));
  if (durations.length > 0) writeDurations(out, addDurations(durations));
  console.log(
    `${NAME}: merged ${positionals.length} reports into ${out}: ${merged.summary.gate.passed ? 'passed' : 'failed'} (exit ${merged.summary.gate.exitCode}): ${merged.summary.gate.reasons.join('; ')}`,
  );
  return merged.summary.gate.exitCode;
}
