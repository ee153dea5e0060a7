// Server-Sent Events read with fetch: EventSource cannot send the bearer token the console
// authenticates with. Parses `text/event-stream` (id, data, retry, comments), hands each event's
// data on as JSON, and after a broken or ended stream reconnects with Last-Event-ID, so nothing is
// missed or repeated. A stream that cannot be opened (refused, or not a stream: a proxy in the way)
// is handed back to the caller, which polls instead.

const DEFAULT_RETRY_MS = 3000;

/** A parser fed text as it comes; `onEvent(data, id)` per complete event, `onRetry(ms)` per `retry:`. */
export function sseParser({ onEvent, onRetry }) {
  let buffer = '';
  let data = [];
  let id = null;
  const line = (text) => {
    if (text === '') {
      if (data.length > 0) onEvent(data.join('\n'), id);
      data = [];
      id = null;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  };
  return {
    push(text) {
      buffer += text;
      // A `\r` at the end may be the first half of `\r\n`: it waits for what follows.
      const held = buffer.endsWith('\r') ? '\r' : '';
      const lines = (held ? buffer.slice(0, -1) : buffer).split(/\r\n|\r|\n/);
      // The last piece is a line not finished yet.
      buffer = lines.pop() + held;
      for (const complete of lines) line(complete);
    },
  };
}

/**
 * Follows a stream until `stop()`. `open(lastEventId, signal)` resolves with the response body or
 * rejects with the failure; `onEvent(data, id)` gets every event's data parsed; `onUnavailable(failure)`
 * is called once when the stream cannot be (re)opened, and nothing is tried after it.
 */
export function followEventStream(open, { onEvent, onUnavailable }) {
  const abort = new AbortController();
  let lastEventId = null;
  let retryMs = DEFAULT_RETRY_MS;
  const parser = () =>
    sseParser({
      onEvent: (data, id) => {
        if (id !== null) lastEventId = id;
        onEvent(JSON.parse(data), id);
      },
      onRetry: (ms) => {
        retryMs = ms;
      },
    });
  const run = async () => {
    while (!abort.signal.aborted) {
      let body;
      try {
        body = await open(lastEventId, abort.signal);
      } catch (failure) {
        if (!abort.signal.aborted) onUnavailable(failure);
        return;
      }
      try {
        const reader = body.pipeThrough(new TextDecoderStream()).getReader();
        const frames = parser();
        for (;;) {
          const { done, value } = await reader.read();
          if (done || abort.signal.aborted) break;
          frames.push(value);
        }
      } catch {
        // The connection broke: reconnect after the wait, from the last event received.
      }
      if (abort.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void run();
  return () => abort.abort();
}
