// A report placed in the matrix: loaded as compare loads it (another major format refused), with
// where its folder is from the matrix's folder and when it was taken: the report holds no time, so
// the caller's, or else the report file's modification time (a CI artifact's download time, say).
// And a matrix checked against its JSON Schema.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadReport, ReportError } from './load.ts';
import type { MatrixRun } from './matrix.ts';

/** `path` (a report folder or a report.json file) as a run of the matrix written to `matrixFolder`. */
export function loadMatrixRun(path: string, matrixFolder: string, when?: string): MatrixRun {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'report.json') : path;
  const report = loadReport(file);
  let time: string;
  if (when === undefined) time = statSync(file).mtime.toISOString();
  else {
    const parsed = new Date(when);
    if (Number.isNaN(parsed.getTime())) throw new ReportError(`${path}: '${when}' is no date or time (ISO 8601, e.g. 2025-05-01 or 2025-05-01T12:00:00Z)`);
    time = parsed.toISOString();
  }
  const fromMatrix = (to: string) => relative(matrixFolder, to).split(sep).join('/') || '.';
  const html = join(dirname(file), 'report.html');
  return {
    report,
    folder: fromMatrix(dirname(file)),
    file: basename(file),
    ...(existsSync(html) ? { html: fromMatrix(html) } : {}),
    when: time,
    whenFrom: when === undefined ? 'file-time' : 'given',
  };
}

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
let validate: ValidateFunction | undefined;

/** What in a matrix departs from specs/schemas/matrix.schema.json (none for a valid one). */
export function matrixProblems(matrix: unknown): string[] {
  validate ??= addFormats(new Ajv2020({ strict: false, allErrors: true })).compile(
    JSON.parse(readFileSync(new URL('../specs/schemas/matrix.schema.json', import.meta.url), 'utf8')) as object,
  );
  return validate(matrix) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(top level)'} ${e.message ?? e.keyword}`);
}
