import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiErrorCode } from './error-codes.js';
import { errorEnvelope } from './error-envelope.js';

/** Node's own choice of status per parser error (its `socketOnError`), with a code of ours. */
const ANSWERS: Readonly<Record<string, readonly [status: number, reason: string, code: string, message: string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', ApiErrorCode.REQUEST_HEADERS_TOO_LARGE, 'the request headers are larger than the server accepts'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', ApiErrorCode.REQUEST_BODY_TOO_LARGE, 'the chunk extensions of the request body are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', ApiErrorCode.REQUEST_TIMEOUT, 'the request did not arrive in time'],
};
const UNPARSABLE = [400, 'Bad Request', ApiErrorCode.REQUEST_UNPARSABLE, 'the request is not valid HTTP (request line, header syntax or a raw non-ASCII byte in the path)'] as const;

/**
 * Answers what Node's HTTP parser refuses before any middleware runs (a malformed request line, a raw
 * non-ASCII byte in the target, headers over the limit, a request that never finished arriving) with
 * the error envelope, as every other error is answered, instead of Node's bare text. Like Node, it
 * writes nothing once a response on the connection has started, and closes the connection.
 */
export function answerUnparsableRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const [status, reason, code, message] = ANSWERS[error.code ?? ''] ?? UNPARSABLE;
      const body = JSON.stringify(errorEnvelope(code, message));
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  });
}
