// A small model of the documented behaviour of threads: what each thread's state holds, as it
// read after the last operation on that thread itself (no other operation may change it, §3: a
// copy is independent of its original), and the status its last run left it in.
import type { ApiClient } from '../../../harness/client.ts';
import type { Time } from '../../../harness/time.ts';

export interface ThreadModel {
  /** The id on the target. */
  id: string;
  /** The state values as read right after the thread's own last operation (create, copy, run). */
  values: Record<string, unknown>;
  /** The status its last run leaves it in; undefined before any run of its own. */
  afterRun: 'idle' | 'error' | undefined;
}

export interface Model {
  threads: ThreadModel[];
  /** Metadata that marks this run's threads on a shared target. */
  testKey: string;
}

export interface Real {
  agent: ApiClient;
  time: Time;
}
