// One simulated agent server (a deployment): its stores share the simulator's clock and ids.
import type { VirtualClock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import { AssistantStore } from './assistants.ts';
import { RunStore, type RunHooks } from './runs.ts';
import { ThreadStore } from './threads.ts';

export class AgentServer {
  readonly threads: ThreadStore;
  readonly assistants: AssistantStore;
  readonly runs: RunStore;

  constructor(env: { clock: VirtualClock; ids: IdGenerator }, hooks: RunHooks = {}) {
    this.threads = new ThreadStore(env);
    this.assistants = new AssistantStore(() => env.clock.iso());
    this.runs = new RunStore(env, this.threads, this.assistants, hooks);
  }

  reset(): void {
    this.runs.clear();
    this.threads.clear();
    this.assistants.clear();
  }
}
