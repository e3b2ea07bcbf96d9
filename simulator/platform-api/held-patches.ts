// Patches that arrive before their run's post: the official client sends a run's post and its patch in whatever
// multipart request its queue holds them, so a patch may come in an earlier request than its post (langsmith JS
// client, langsmith-sdk js/src/client.ts: a multipart 404 makes it fall back to /runs/batch for good). The service
// holds such a patch and applies it when the post arrives; so does the simulator, within bounds it states:
// - time: a patch is held HOLD_MS of the simulator's clock; one whose post has not arrived by then is dropped;
// - memory: at most MAX_HELD patches per workspace. A patch that finds the hold full is refused (404, naming the
//   bound), never dropped unsaid.
// Plain state, no HTTP: the store asks `hold` and `take`, all or nothing with the request that holds or takes.

type Json = Record<string, unknown>;

/** How long a patch waits for its post, in ms of the simulator's clock. */
export const HOLD_MS = 5 * 60_000;
/** How many patches one workspace's hold keeps at most. */
export const MAX_HELD = 10_000;

export interface HeldPatch {
  run: Json;
  /** When it arrived (the clock's ms). */
  at: number;
}

export class HeldPatches {
  /** Per run id, its patches in arrival order; Map order is the arrival order of the first patch of each id. */
  private readonly byRun = new Map<string, HeldPatch[]>();
  private count = 0;

  constructor(private readonly bounds: { holdMs: number; maxHeld: number } = { holdMs: HOLD_MS, maxHeld: MAX_HELD }) {}

  /** Whether `n` more patches fit at `now` (expired ones are dropped first). */
  fits(n: number, now: number): boolean {
    this.expire(now);
    return this.count + n <= this.bounds.maxHeld;
  }

  /** Holds a patch of run `id` that arrived at `now`; call `fits` first. */
  hold(id: string, run: Json, now: number): void {
    let list = this.byRun.get(id);
    if (!list) this.byRun.set(id, (list = []));
    list.push({ run, at: now });
    this.count++;
  }

  /** The patches held for run `id` that have not expired at `now`, in arrival order, left in place (`drop` removes them). */
  peek(id: string, now: number): HeldPatch[] {
    const list = this.byRun.get(id);
    return list ? list.filter((p) => now - p.at <= this.bounds.holdMs) : [];
  }

  /** Removes the patches of run `id`: applied with its post. */
  drop(id: string): void {
    const list = this.byRun.get(id);
    if (!list) return;
    this.count -= list.length;
    this.byRun.delete(id);
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.byRun.clear();
    this.count = 0;
  }

  /** Drops the patches held longer than the bound: their runs were never posted in time. */
  private expire(now: number): void {
    for (const [id, list] of this.byRun) {
      const kept = list.filter((p) => now - p.at <= this.bounds.holdMs);
      this.count -= list.length - kept.length;
      if (kept.length === 0) this.byRun.delete(id);
      else if (kept.length !== list.length) this.byRun.set(id, kept);
    }
  }
}
