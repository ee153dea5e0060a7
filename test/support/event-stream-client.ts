// A Server-Sent Events client for the suites: one request, its status and headers, the error
// envelope when refused, and the frames one at a time (events with their id, comments), null once
// the server ended the stream or the connection broke.

export type StreamFrame = { kind: 'event'; id: string | null; data: string } | { kind: 'comment'; text: string };

export interface EventStreamAnswer {
  status: number;
  headers: Headers;
  /** The JSON body of a refusal; null for a stream. */
  refusal: { code: string; error: string } | null;
  /** The next frame; null when the stream is over. */
  next(): Promise<StreamFrame | null>;
  /** The events (data parsed as JSON) until `done` holds for the last one, `count` have come, or the stream ends. */
  eventsUntil<T = Record<string, unknown>>(done: (data: T, id: string | null) => boolean, count?: number): Promise<Array<{ id: string | null; data: T }>>;
  /** Every event until the server ends the stream. */
  eventsToEnd<T = Record<string, unknown>>(): Promise<Array<{ id: string | null; data: T }>>;
  close(): void;
}

export async function openEventStream(url: string, headers: Record<string, string>): Promise<EventStreamAnswer> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      refusal: JSON.parse(text) as { code: string; error: string },
      next: async () => null,
      eventsUntil: async () => [],
      eventsToEnd: async () => [],
      close: () => abort.abort(),
    };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let over = false;
  const frames: StreamFrame[] = [];

  /** Parses the complete blocks of the buffer (a block ends with a blank line). */
  const parse = () => {
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frames.push({ kind: 'comment', text: line.slice(1).trim() });
        else if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) frames.push({ kind: 'event', id, data: data.join('\n') });
    }
  };

  const next = async (): Promise<StreamFrame | null> => {
    while (frames.length === 0) {
      if (over) return null;
      try {
        const { done, value } = await reader.read();
        if (done) over = true;
        else {
          buffer += value;
          parse();
        }
      } catch {
        over = true;
      }
    }
    return frames.shift()!;
  };

  const eventsUntil = async <T>(done: (data: T, id: string | null) => boolean, count = Number.POSITIVE_INFINITY) => {
    const seen: Array<{ id: string | null; data: T }> = [];
    for (let frame = await next(); frame !== null; frame = await next()) {
      if (frame.kind !== 'event') continue;
      const data = JSON.parse(frame.data) as T;
      seen.push({ id: frame.id, data });
      if (done(data, frame.id) || seen.length >= count) break;
    }
    return seen;
  };

  return {
    status: response.status,
    headers: response.headers,
    refusal: null,
    next,
    eventsUntil,
    eventsToEnd: () => eventsUntil(() => false),
    close: () => abort.abort(),
  };
}
