// Reads a report.json written by this tool (or the folder holding one), refusing a report of
// another major format version: compare, merge and --baseline would misread it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { REPORT_VERSION, type ConformanceReport } from './conformance-report.ts';

export class ReportError extends Error {}

const major = (version: string) => version.split('.')[0];

export function loadReport(path: string): ConformanceReport {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'report.json') : path;
  if (!existsSync(file)) throw new ReportError(`${file} does not exist`);
  let parsed: Partial<ConformanceReport>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ConformanceReport>;
  } catch (error) {
    throw new ReportError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed.reportVersion !== 'string') throw new ReportError(`${file} is no conformance report of this tool (it has no reportVersion)`);
  if (major(parsed.reportVersion) !== major(REPORT_VERSION)) {
    throw new ReportError(`${file} is a report of format ${parsed.reportVersion}; this version of the tool reads format ${major(REPORT_VERSION)}.x`);
  }
  const problems = reportProblems(parsed);
  if (problems.length > 0)
    throw new ReportError(`${file} does not match the report schema (specs/schemas/report.schema.json): ${problems.slice(0, 5).join('; ')}`);
  return parsed as ConformanceReport;
}

let validate: ValidateFunction | undefined;

/** What in a report departs from its JSON Schema (none for a valid report). */
export function reportProblems(report: unknown): string[] {
  validate ??= new Ajv2020({ strict: false, allErrors: true }).compile(
    JSON.parse(readFileSync(new URL('../specs/schemas/report.schema.json', import.meta.url), 'utf8')) as object,
  );
  return validate(report) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(top level)'} ${e.message ?? e.keyword}`);
}
