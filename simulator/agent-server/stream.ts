// Server-sent events of a run (the open-source agent server, langgraph-api sse.py and api/runs.py): a first `metadata` event, then one
// event per requested stream mode as the run progresses, `error` on failure; the stream
// closes when the run ends. Each event carries its position in the run's log as `id`.
// The format is the reference's.
import type { StreamReply } from '../http/router.ts';
import type { RunEvent, RunRecord, RunStore } from './runs.ts';
import { hasEnded } from './runs.ts';

const ALWAYS = new Set(['metadata', 'error']);

/** An event name and JSON data (STREAM-SSE-JSON-DATA), and its id: the reference's format (STREAM-FORMAT). */
function format(event: RunEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\nid: ${event.id}\n\n`;
}

/**
 * Streams a run's events from `afterId` on (the Last-Event-ID of a reconnecting client), as text/event-stream
 * (STREAM-SSE-CONTENT-TYPE): metadata and error always, other events by the requested modes (STREAM-SSE-MODE-EVENTS).
 */
export function streamRun(run: RunRecord, modes: string[], headers: Record<string, string>, afterId = -1): StreamReply {
  const wanted = (event: RunEvent) => event.id > afterId && (ALWAYS.has(event.event) || modes.includes(event.event));
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers },
    stream: (write, end, closed) => {
      for (const event of run.events) if (wanted(event)) write(format(event));
      // Once the run has ended the stream closes, with no end event of its own (STREAM-SSE-CLOSE-AT-END).
      if (hasEnded(run.status)) {
        end();
        return;
      }
      const listener = (event: RunEvent | 'end') => {
        if (event === 'end') {
          run.listeners.delete(listener);
          end();
        } else if (wanted(event)) {
          write(format(event));
        }
      };
      run.listeners.add(listener);
      void closed.then(() => run.listeners.delete(listener));
    },
  };
}

/** The stream modes a run was created with. */
export function modesOf(run: RunRecord): string[] {
  return (run.kwargs.stream_mode as string[] | undefined) ?? ['values'];
}

export async function waitForResult(runs: RunStore, run: RunRecord): Promise<Record<string, unknown>> {
  await runs.whenFinished(run);
  return runs.result(run);
}
