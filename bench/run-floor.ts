// The first README command (`run --out <dir>`, the embedded run of all planes) timed, and the floor
// under it: the same recorded requests replayed with no harness around them (bench/har-replay.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimulatorInfo } from '../specs/types/simulator-admin.ts';
import { timed, type Timed } from './commands.ts';
import { type HarEntry, replay, type ReplayResult, replayScript } from './har-replay.ts';
import { CLI, simulate, urlIn } from './processes.ts';
import { log } from './table.ts';

interface RunFloor {
  run: Timed;
  floor: ReplayResult;
  /** Requests replayed, and those of the recording left out. */
  replayed: number;
  deliveries: number;
  elsewhere: number;
}

/** Each replay against a simulator of its own: the floor is the faster of these (the machine is shared). */
const REPLAYS = 2;

export async function runFloor(scratch: string): Promise<RunFloor> {
  const out = join(scratch, 'report');
  log('timing the first README command (embedded run of all planes)');
  const run = timed(process.execPath, [CLI, 'run', '--out', out]);
  log(`run: ${run.seconds.toFixed(1)} s (exit ${run.status})`);
  const { seed } = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { seed: string };
  const entries = (JSON.parse(readFileSync(join(out, 'exchanges.har'), 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
  let floor: ReplayResult | undefined;
  let script: ReturnType<typeof replayScript> | undefined;
  for (let i = 0; i < REPLAYS; i++) {
    const sim = await simulate([], seed);
    try {
      const info = (await (await fetch(urlIn(sim, /admin path +http/))).json()) as SimulatorInfo;
      script = replayScript(entries, info);
      const result = await replay(script.requests);
      log(
        `replay ${i + 1} of ${script.requests.length} recorded requests against a fresh simulator (seed ${seed}): ${result.seconds.toFixed(2)} s, ${result.sameStatus} with the recorded status, ${result.timedOut} timed out`,
      );
      if (floor === undefined || result.seconds < floor.seconds) floor = result;
    } finally {
      await sim.stop();
    }
  }
  return { run, floor: floor!, replayed: script!.requests.length, deliveries: script!.deliveries, elsewhere: script!.elsewhere };
}
