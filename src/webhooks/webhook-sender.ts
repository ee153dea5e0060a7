import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { refusedAddress } from './address-ranges.js';
import { urlProblem, type DestinationRules } from './webhook-url.js';

/** How long an attempt may take, connection and answer together. */
export const DELIVERY_TIMEOUT_MS = 5000;
/** Bytes of an answer read at most: only its status counts, the rest is not waited for. */
export const RESPONSE_READ_MAX_BYTES = 4096;

/** What an attempt got: an HTTP status, or why there was none. */
export type SendResult = { statusCode: number } | { error: string };

export interface WebhookPost {
  url: string;
  body: string;
  headers: Readonly<Record<string, string>>;
}

/** A refused destination, so the attempt fails before any connection. */
class RefusedDestination extends Error {}

/**
 * Resolves like the system does and hands the connection only checked addresses: the check and the
 * connection use the same answer, so a name that resolves elsewhere between them (DNS rebinding)
 * cannot slip through. Every address of the answer must be allowed.
 */
function checkedLookup(rules: DestinationRules): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (!rules.allowPrivateNetworks) {
        for (const { address } of addresses) {
          const refused = refusedAddress(address);
          // The range, not the address: the tenant reads this, and the network's names are none of its business.
          if (refused !== null) return callback(new RefusedDestination(`${hostname} resolves to ${refused}`), '', 0);
        }
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(new RefusedDestination(`${hostname} has no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** The first `max` characters of a text for the delivery's `lastError`. */
function short(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * One POST of a delivery: over node:http(s) with the checked lookup (an IP literal is checked by
 * the URL rules, as no lookup runs for it), a fresh connection each time, at most DELIVERY_TIMEOUT_MS in
 * all, no redirect followed (a 3xx is an answer that is not a success), and at most
 * RESPONSE_READ_MAX_BYTES of the answer read. Never throws: a failure is `{ error }`.
 */
export function postWebhook(post: WebhookPost, rules: DestinationRules): Promise<SendResult> {
  // The subscription's rules again (the settings may have changed since), an IP literal's address among them.
  const problem = urlProblem(post.url, rules);
  if (problem !== null) return Promise.resolve({ error: short(problem.message.replaceAll('`', '')) });
  const url = new URL(post.url);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: checkedLookup(rules),
        headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      },
      (response: IncomingMessage) => {
        let read = 0;
        const done = () => {
          settle({ statusCode: response.statusCode ?? 0 });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= RESPONSE_READ_MAX_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      settle({ error: `no answer within ${DELIVERY_TIMEOUT_MS} ms` });
      req.destroy();
    }, DELIVERY_TIMEOUT_MS);
    req.on('error', (error) => settle({ error: short(error instanceof RefusedDestination ? error.message : `${(error as NodeJS.ErrnoException).code ?? 'ERROR'}: ${error.message}`) }));
    req.end(post.body);
  });
}
