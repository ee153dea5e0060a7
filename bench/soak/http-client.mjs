// The load generator's HTTP client: node:http over keep-alive connections (cheaper per request than
// fetch, so the generator takes less of the two cores from the service). It never rejects: a
// network error or a time-out comes back as status 0 with the error's code.
import http from 'node:http';

const REQUEST_TIMEOUT_MS = 30_000;

/** `request(method, path, headers, body?)` → `{status, headers, body, networkError}`; `body` is parsed JSON or null, `headers` Node's lowercase header object (empty on a network error). */
export function createHttpClient(base, { maxSockets }) {
  const { hostname, port } = new URL(base);
  // With a timeout set, the agent closes an idle connection 1 s before the server's announced
  // keep-alive timeout (Node honours the hint only then); without it, a request sent on a connection
  // the server is closing at that moment fails with ECONNRESET before the server has read it.
  const agent = new http.Agent({ keepAlive: true, maxSockets, timeout: REQUEST_TIMEOUT_MS });

  function request(method, path, headers, body) {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (answer) => {
        if (settled) return;
        settled = true;
        resolve(answer);
      };
      const sized = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
      const outgoing = http.request({ host: hostname, port, method, path, headers: sized, agent }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          let parsed = null;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {}
          settle({ status: response.statusCode, headers: response.headers, body: parsed, networkError: null });
        });
        response.on('error', (error) => settle({ status: 0, headers: {}, body: null, networkError: error.code ?? 'RESPONSE_ERROR' }));
      });
      outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => {
        outgoing.destroy();
        settle({ status: 0, headers: {}, body: null, networkError: 'CLIENT_TIMEOUT' });
      });
      outgoing.on('error', (error) => settle({ status: 0, headers: {}, body: null, networkError: error.code ?? 'REQUEST_ERROR' }));
      outgoing.end(body);
    });
  }

  return { request, close: () => agent.destroy() };
}
