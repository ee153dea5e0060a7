// What Node's parser refuses never reaches the middleware; it is still answered with the envelope.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerUnparsableRequests } from '../unparsable-request.js';

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function raw(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

const parse = (answer: string) => {
  const [head, body] = answer.split('\r\n\r\n');
  return { statusLine: head!.split('\r\n')[0], head: head!, body: JSON.parse(body!) as Record<string, unknown> };
};

describe('answerUnparsableRequests', () => {
  let server: Server;
  let port: number;
  let reached = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      reached += 1;
      res.end('ok');
    });
    answerUnparsableRequests(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('answers a malformed request line and a raw non-ASCII byte in the target with a 400 envelope', async () => {
    for (const request of ['GARBAGE\r\n\r\n', Buffer.concat([Buffer.from('GET /api/v1/policies/'), Buffer.from([0xc3, 0xa9]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])]) {
      const answer = parse(await raw(port, request));
      expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
      expect(answer.head).toMatch(/content-type: application\/json/i);
      expect(answer.body).toEqual({ result: null, error: expect.any(String), executionTimeMs: 0, code: 'ERR_REQUEST_UNPARSABLE' });
    }
    expect(reached).toBe(0);
  });

  it('answers headers over the limit with a 431 envelope', async () => {
    const answer = parse(await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(answer.body.code).toBe('ERR_REQUEST_HEADERS_TOO_LARGE');
    expect(reached).toBe(0);
  });
});
