// Writes every format of one report into a folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toHtml } from './html.ts';
import { toJUnit } from './junit.ts';
import { toMarkdown } from './markdown.ts';
import type { ConformanceReport } from './model.ts';

export const REPORT_FILES = { json: 'report.json', junit: 'junit.xml', markdown: 'summary.md', html: 'report.html' } as const;

export function writeReport(dir: string, report: ConformanceReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, REPORT_FILES.json), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, REPORT_FILES.junit), toJUnit(report));
  writeFileSync(join(dir, REPORT_FILES.markdown), toMarkdown(report));
  writeFileSync(join(dir, REPORT_FILES.html), toHtml(report));
}
