// Streamed runs broken at the agent server: their output, their events and their refusals.
import type { Mutation } from '../broken-target.ts';
import { calls, isRecord, jsonError, object } from './support.ts';

/** An event stream's blocks (events), each with its name; the text is rebuilt from the blocks kept. */
function blocksOf(text: string): { block: string; event: string | undefined }[] {
  return text
    .split(/\n\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => ({ block, event: /^event: ?(.*)$/m.exec(block)?.[1] }));
}
const joined = (blocks: { block: string }[]) => blocks.map((b) => `${b.block}\n\n`).join('');

/** Drops the last event of the run's output (neither metadata nor error): the stream ends before the graph's last step. */
function withoutLastOutput(text: string): string {
  const blocks = blocksOf(text);
  const last = blocks.map((b) => !['metadata', 'error', 'end'].includes(b.event ?? '')).lastIndexOf(true);
  return last < 0 ? text : joined(blocks.filter((_, i) => i !== last));
}

/** Whether a stream is of a thread's run: only those answer a Location to reconnect to (a stateless run has none). */
const stateful = (headers: Record<string, string>) => headers.location !== undefined;

export const STREAM_MUTATIONS: Record<string, Mutation> = {
  'thread-stream-cut-short': {
    breaks: ['STREAM-RUN'],
    description: "a thread's stream ends before the graph's last step: the run's final output is never streamed",
    stream: (text, headers) => ({ text: stateful(headers) ? withoutLastOutput(text) : text, headers }),
  },
  'stateless-stream-cut-short': {
    breaks: ['STREAM-STATELESS'],
    description: "a stateless stream ends before the graph's last step: the run's final output is never streamed",
    stream: (text, headers) => ({ text: stateful(headers) ? text : withoutLastOutput(text), headers }),
  },
  'stateless-stream-refuses-events-mode': {
    breaks: ['STREAM-EVENTS-MODE'],
    description: 'POST /runs/stream refuses stream_mode events with 422',
    request: (req) => {
      const mode = object(req.body).stream_mode;
      const events = mode === 'events' || (Array.isArray(mode) && mode.includes('events'));
      return calls(req, 'streamStatelessRun') && events ? jsonError(422, 'unknown stream_mode: events') : req;
    },
  },
  'join-stream-absent': {
    breaks: ['RUN-JOIN-STREAM'],
    description: "a run's stream cannot be joined: GET /threads/{thread_id}/runs/{run_id}/stream answers 404",
    request: (req) => (calls(req, 'joinRunStream') ? jsonError(404, 'Not Found') : req),
  },
  'events-data-not-json': {
    breaks: ['STREAM-SSE-JSON-DATA'],
    description: "the data of events-mode events is Python's repr of the event, not JSON",
    stream: (text, headers) => {
      const repr = (block: string) => block.replace(/^data: ?(.*)$/gm, (_line, data: string) => `data: ${data.replaceAll('"', "'")}`);
      return { text: joined(blocksOf(text).map((b) => (b.event === 'events' ? { ...b, block: repr(b.block) } : b))), headers };
    },
  },
  'default-stream-mode-updates': {
    breaks: ['STREAM-SSE-MODE-EVENTS'],
    description: 'a stream without stream_mode streams updates, not values',
    request: (req) => {
      const body = req.body;
      const open = calls(req, 'streamRun', 'streamStatelessRun') && isRecord(body) && !('stream_mode' in body);
      return open ? { ...req, body: { ...body, stream_mode: 'updates' } } : req;
    },
  },
  'stream-conflict-streamed': {
    breaks: ['STREAM-ERRORS-BEFORE-STREAM'],
    description: 'a stream refused for a reject conflict is answered as a stream holding an error event',
    response: (res, req) => {
      if (!calls(req, 'streamRun') || res.status !== 409) return res;
      const error = JSON.stringify({ error: 'Conflict', message: String(object(res.body).detail) });
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `event: error\ndata: ${error}\n\n` };
    },
  },
};
