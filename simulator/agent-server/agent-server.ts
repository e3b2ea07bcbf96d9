// One simulated agent server (a deployment): its stores share the simulator's clock and ids.
import type { VirtualClock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import { ThreadStore } from './threads.ts';

export class AgentServer {
  readonly threads: ThreadStore;

  constructor(env: { clock: VirtualClock; ids: IdGenerator }) {
    this.threads = new ThreadStore(env);
  }

  reset(): void {
    this.threads.clear();
  }
}
