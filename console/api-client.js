// Every call of the console goes through the public REST API with the operator's token and
// tenant, so the server's authorization rules are the console's.
import { followEventStream } from './event-stream.js';

/**
 * A refused or failed call: the HTTP status (0 when the service did not answer), the envelope's
 * code, and the whole answer (`body`, null when there was none) for refusals that carry more than
 * the envelope (a deploy's test failures or compile diagnostics).
 */
export class ApiFailure extends Error {
  constructor(status, code, message, body = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** `onUnauthorized` runs on a 401 (token expired or refused), before the failure is thrown. */
export function createApiClient(session, { onUnauthorized }) {
  const urlOf = (path, query) => {
    const url = new URL(path, window.location.origin);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
    }
    return url;
  };
  const refusal = (response, data) => {
    if (response.status === 401) onUnauthorized();
    return new ApiFailure(response.status, data?.code ?? '', data?.error ?? `The service answered ${response.status}.`, data);
  };

  /** Opens a Server-Sent Events stream: its body, or the failure (a refusal, or an answer that is no stream). */
  async function openStream(path, query, lastEventId, signal) {
    const headers = { Authorization: `Bearer ${session.token}`, 'X-Tenant-ID': session.tenantId, Accept: 'text/event-stream' };
    if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId;
    let response;
    try {
      response = await fetch(urlOf(path, query), { headers, signal, cache: 'no-store' });
    } catch (error) {
      throw new ApiFailure(0, 'NETWORK', `The service did not answer (${error.message}).`);
    }
    if (response.ok && (response.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) return response.body;
    const data = await response.json().catch(() => null);
    if (response.ok) throw new ApiFailure(response.status, '', 'The answer was not a stream.');
    throw refusal(response, data);
  }

  async function request(method, path, { query, body, idempotencyKey } = {}) {
    const url = urlOf(path, query);
    const headers = { Authorization: `Bearer ${session.token}`, 'X-Tenant-ID': session.tenantId, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    let response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    } catch (error) {
      throw new ApiFailure(0, 'NETWORK', `The service did not answer (${error.message}).`);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      data = null;
    }
    if (!response.ok) throw refusal(response, data);
    return data;
  }
  return {
    get: (path, query) => request('GET', path, { query }),
    send: (method, path, { body, idempotencyKey, query } = {}) => request(method, path, { query, body, idempotencyKey }),
    /** Follows a stream (event-stream.js): `{onEvent(data, id), onUnavailable(failure)}`; returns `stop()`. */
    stream: (path, query, handlers) => followEventStream((lastEventId, signal) => openStream(path, query, lastEventId, signal), handlers),
  };
}
