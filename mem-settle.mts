import { ingest } from './bench/ingest.ts';
import { CLI, startProcess, urlIn } from './bench/processes.ts';
const pct = process.argv[2];
const sim = await startProcess('simulate', [...(pct ? [`--heap-growing-percent=${pct}`] : []), CLI, 'simulate', '--seed', 'bench', '--clock', 'virtual', '--log-level', 'warn', '--no-rate-limits'], /Ctrl-C to stop/);
const apiKey = sim.lines.find((l) => l.startsWith('LANGSMITH_API_KEY='))!.split('=')[1];
const target = { url: urlIn(sim, /platform-api /), apiKey };
const mib = (b: number) => (b / 1048576).toFixed(0);
try {
  const r = await ingest(target, 1_000_000);
  console.log(`growing ${pct ?? 'default'}: ingested ${r.runs} at ${Math.round(r.runsPerSecond)}/s, p99 ${r.p99Ms.toFixed(1)} ms; RSS ${mib(sim.rss())} MiB`);
} finally {
  await sim.stop();
}
