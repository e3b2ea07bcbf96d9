// Conformant variants of threads, runs, streams and assistants: what §2.7–§2.10, §3 and §4.5 leave open.
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { calls, isRecord, jsonError } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

const STREAMS = ['streamRun', 'streamStatelessRun'];

/** A stream request whose stream_mode is given in the form `refused` (a string, or a list), answered 422. */
function streamModeOnly(refused: 'string' | 'list'): (req: MutableRequest) => MutableRequest | MutableResponse {
  return (req) => {
    const mode = isRecord(req.body) ? req.body.stream_mode : undefined;
    const form = typeof mode === 'string' ? 'string' : Array.isArray(mode) ? 'list' : undefined;
    return calls(req, ...STREAMS) && form === refused ? jsonError(422, `stream_mode must be ${refused === 'string' ? 'a list' : 'a string'}`) : req;
  };
}

export const AGENT_SERVER_RUN_VARIANTS: Record<string, Variant> = {
  'agent-server-stream-mode-list-only': {
    description: 'the streaming endpoints take stream_mode only as a list of modes: a string is refused with 422',
    allowedBy: '§4.5: "Stream `stream_mode` value `events` is used with streaming" names the value, not its type; the stream body is "same body as create run"',
    request: streamModeOnly('string'),
  },
  'agent-server-stream-mode-string-only': {
    description: 'the streaming endpoints take stream_mode only as one mode, a string: a list is refused with 422',
    allowedBy: '§4.5: "Stream `stream_mode` value `events` is used with streaming" names one value, and no list of them',
    request: streamModeOnly('list'),
  },
};
