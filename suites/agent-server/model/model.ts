// A small model of the documented behaviour of threads and runs: what each thread's
// state should hold and which status it should have, after any sequence of operations.
import type { ApiClient } from '../../../harness/client.ts';

export interface ThreadModel {
  /** The id on the target. */
  id: string;
  topic: string | undefined;
  /** The answers runs wrote, in order. */
  answers: string[];
  status: 'idle' | 'error';
}

export interface Model {
  threads: ThreadModel[];
  /** Metadata that marks this run's threads on a shared target. */
  scope: string;
}

export interface Real {
  agent: ApiClient;
}
