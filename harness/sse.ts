// Parses a server-sent-events body the way the official SDK does (@langchain/langgraph-sdk's SSE parser, langgraphjs libs/sdk):
// lines split on \n, \r\n or \r; data lines of one event joined; a blank line dispatches.

interface SseEvent {
  event: string;
  /** The data lines joined with newlines (JSON may be spread over several lines). */
  data: string;
  id?: string;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let current: { event?: string; data: string[]; id?: string } = { data: [] };
  const dispatch = () => {
    if (current.event !== undefined || current.data.length > 0) {
      events.push({ event: current.event ?? 'message', data: current.data.join('\n'), ...(current.id !== undefined ? { id: current.id } : {}) });
    }
    current = { data: [] };
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') current.event = value;
    else if (field === 'data') current.data.push(value);
    else if (field === 'id') current.id = value;
  }
  dispatch();
  return events;
}

/** The event's data as JSON, or a marker when it is not JSON. */
export function dataOf(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    return { __not_json__: event.data };
  }
}
