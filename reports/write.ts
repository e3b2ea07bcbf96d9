// Writes every format of one report into a folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toHtml } from './html.ts';
import { toJUnit } from './junit.ts';
import { toMarkdown } from './markdown.ts';
import type { ConformanceReport } from './conformance-report.ts';

export const REPORT_FILES = { json: 'report.json', junit: 'junit.xml', markdown: 'summary.md', html: 'report.html' } as const;

/**
 * report.json indented, but one line per exchange: the exchanges are most of a report, and
 * indented they make a full run's file half as large again.
 */
function reportJson(report: ConformanceReport): string {
  const { exchanges, ...rest } = report;
  const head = JSON.stringify({ ...rest, exchanges: {} }, null, 2);
  const lines = Object.entries(exchanges).map(([id, exchange]) => `    ${JSON.stringify(id)}: ${JSON.stringify(exchange)}`);
  return `${lines.length === 0 ? head : `${head.slice(0, -'{}\n}'.length)}{\n${lines.join(',\n')}\n  }\n}`}\n`;
}

export function writeReport(dir: string, report: ConformanceReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, REPORT_FILES.json), reportJson(report));
  writeFileSync(join(dir, REPORT_FILES.junit), toJUnit(report));
  writeFileSync(join(dir, REPORT_FILES.markdown), toMarkdown(report));
  writeFileSync(join(dir, REPORT_FILES.html), toHtml(report));
}
