// The bench's output: log lines as figures come, and the final table of every measure beside its goal.

/** A row of the final table: what was measured, beside its goal (met undefined: no goal, or not measured). */
interface Row {
  measure: string;
  measured: string;
  goal: string;
  met: boolean | undefined;
}

const rows: Row[] = [];

export const MiB = 1024 * 1024;

export const row = (measure: string, measured: string, goal: string, met: boolean | undefined) => rows.push({ measure, measured, goal, met });
export const log = (line: string) => console.log(`[bench] ${line}`);
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/** The table in Markdown, under a line that says how it was measured. */
export function printTable(heading: string): void {
  const mark = (met: boolean | undefined) => (met === undefined ? '–' : met ? 'met' : 'NOT MET');
  console.log(`\n${heading}\n`);
  console.log('| measure | measured | goal | |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.measure} | ${r.measured} | ${r.goal} | ${mark(r.met)} |`);
}
