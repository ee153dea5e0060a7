import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiErrorCode } from './error-codes.js';
import { errorEnvelope } from './error-envelope.js';

/**
 * Answers what Node's HTTP parser refuses before any middleware runs (a malformed request line, a raw
 * non-ASCII byte in the target, headers over the limit) with the error envelope, as every other
 * error is answered, instead of Node's bare `400 Bad Request`. The connection is closed after it.
 */
export function answerUnparsableRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing can be written to a connection that is gone or already answering.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const [status, reason, code, message] = tooLarge
      ? [431, 'Request Header Fields Too Large', ApiErrorCode.REQUEST_HEADERS_TOO_LARGE, 'the request headers are larger than the server accepts']
      : [400, 'Bad Request', ApiErrorCode.REQUEST_UNPARSABLE, 'the request is not valid HTTP (request line, header syntax or a raw non-ASCII byte in the path)'];
    const body = JSON.stringify(errorEnvelope(code, message));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
