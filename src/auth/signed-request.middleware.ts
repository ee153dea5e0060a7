import type { IncomingMessage } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { TenantRepository } from '../store/ports.js';
import type { NonceGuard } from './nonce-guard.js';
import {
  DEFAULT_SIGNATURE_WINDOW_SECONDS,
  SIGNING_HEADERS,
  TENANT_ID_PATTERN,
  checkSigningHeaders,
  verifySignature,
} from './request-signature.js';

/** Ordered lowest to highest: a role satisfies every requirement at or below it. */
export const SIGNED_REQUEST_ROLES = ['VIEWER', 'MEMBER', 'ADMIN', 'OWNER'] as const;
export type SignedRequestRole = (typeof SIGNED_REQUEST_ROLES)[number];

export type SignedRequestErrorCode =
  | 'ERR_REQUEST_TENANT_HEADER'
  | 'ERR_REQUEST_BODY_TOO_LARGE'
  | 'ERR_AUTH_SIGNATURE_MISSING'
  | 'ERR_AUTH_SIGNATURE_INVALID'
  | 'ERR_AUTH_TIMESTAMP_STALE'
  | 'ERR_AUTH_NONCE_REUSED'
  | 'ERR_AUTH_ROLE_INSUFFICIENT';

/** Koa convention: the outermost error middleware sends `message` and `code` because `expose` is true. */
export class SignedRequestError extends Error {
  readonly expose = true;
  constructor(
    readonly status: 400 | 403 | 413,
    readonly code: SignedRequestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SignedRequestError';
  }
}

/** What a verified request leaves in `ctx.state.auth`. */
export interface SignedRequestAuth {
  tenantId: string;
  role: SignedRequestRole;
  actorId: string;
  method: 'signature';
}

export interface SignedRequestAuthOptions {
  tenants: Pick<TenantRepository, 'activeSecrets'>;
  nonceGuard: NonceGuard;
  /** ± seconds around server time; the nonce guard must remember nonces for twice this. */
  windowSeconds?: number;
  minRole: SignedRequestRole;
  /**
   * Consulted only for requests that carry `Authorization: Bearer` and no signature. Resolving true
   * lets the request through unsigned: the callback has then verified the token, its tenant against
   * `X-Tenant-Id` and its role against `minRole`, and set `ctx.state.auth` (or thrown 401/403).
   * Resolving false falls through to the signature check, which then reports the missing signature.
   */
  allowBearer?: (ctx: Context, minRole: SignedRequestRole) => Promise<boolean>;
  /** Largest body read for hashing; larger bodies get 413. Defaults to 1 MiB. */
  bodyLimitBytes?: number;
  /** Unix seconds; tests move the clock with it. */
  nowSeconds?: () => number;
}

export const DEFAULT_SIGNED_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Authenticates GraphQL and evaluation requests by their HMAC signature (docs/request-signing.md).
 * Checks, cheapest first: tenant header (400), signing headers present, role, timestamp window,
 * signature over the exact raw body, and only then the nonce, so a forged request burns nothing.
 */
export function createSignedRequestAuth(options: SignedRequestAuthOptions): Middleware {
  const windowSeconds = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_SIGNED_BODY_LIMIT_BYTES;
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const minRank = roleRank(options.minRole);
  if (minRank < 0) throw new RangeError(`unknown minimum role ${String(options.minRole)}`);

  return async function signedRequestAuth(ctx, next) {
    const tenantId = singleHeader(ctx, SIGNING_HEADERS.tenantId);
    if (tenantId === undefined || !TENANT_ID_PATTERN.test(tenantId)) {
      throw new SignedRequestError(
        400,
        'ERR_REQUEST_TENANT_HEADER',
        tenantId === undefined
          ? 'missing X-Tenant-Id header'
          : 'X-Tenant-Id must be 1 to 64 characters of letters, digits, `_` or `-`',
      );
    }

    const signatureHeader = singleHeader(ctx, SIGNING_HEADERS.signature);
    if (options.allowBearer && signatureHeader === undefined && /^Bearer\s/i.test(ctx.get('authorization'))) {
      if (await options.allowBearer(ctx, options.minRole)) return next();
    }

    const headers = {
      signatureHeader,
      timestamp: singleHeader(ctx, SIGNING_HEADERS.timestamp),
      nonce: singleHeader(ctx, SIGNING_HEADERS.nonce),
    };
    const now = nowSeconds();
    const precheck = checkSigningHeaders(headers, { nowSeconds: now, windowSeconds });
    if (!precheck.ok && precheck.code === 'ERR_AUTH_SIGNATURE_MISSING') {
      throw new SignedRequestError(403, precheck.code, precheck.message);
    }

    const role = singleHeader(ctx, SIGNING_HEADERS.role);
    const rank = role === undefined ? -1 : roleRank(role);
    if (rank < 0) {
      throw new SignedRequestError(
        403,
        'ERR_AUTH_ROLE_INSUFFICIENT',
        role === undefined
          ? `missing X-User-Role header (this endpoint requires ${options.minRole})`
          : `unknown role \`${role}\` in X-User-Role (known roles: ${SIGNED_REQUEST_ROLES.join(', ')})`,
      );
    }
    if (rank < minRank) {
      throw new SignedRequestError(
        403,
        'ERR_AUTH_ROLE_INSUFFICIENT',
        `role ${role} is not allowed here: this endpoint requires ${options.minRole} or higher`,
      );
    }
    if (!precheck.ok) throw new SignedRequestError(403, precheck.code, precheck.message);

    const secrets = (await options.tenants.activeSecrets(tenantId)).map((s) => s.secret);
    const body = await readRawBody(ctx, bodyLimitBytes);
    // An unknown tenant gets the same answer as a wrong signature: existence is not disclosed.
    const verified = verifySignature({
      ...headers,
      method: ctx.method,
      pathWithQuery: ctx.originalUrl,
      body,
      tenantId,
      role: role!,
      secrets,
      nowSeconds: now,
      windowSeconds,
    });
    if (!verified.ok) throw new SignedRequestError(403, verified.code, verified.message);

    if (!(await options.nonceGuard.claim(tenantId, verified.nonce))) {
      throw new SignedRequestError(
        403,
        'ERR_AUTH_NONCE_REUSED',
        'X-Policy-Nonce was already used: sign every request, including retries, with a fresh nonce',
      );
    }

    const auth: SignedRequestAuth = {
      tenantId,
      role: role as SignedRequestRole,
      actorId: `signed:${tenantId}`,
      method: 'signature',
    };
    ctx.state.auth = auth;
    return next();
  };
}

const rawBodies = new WeakMap<IncomingMessage, Buffer>();

/**
 * The request body exactly as received, read once and remembered for the request. Parsers on
 * signed routes must parse from this buffer (the stream is consumed). A parser that ran earlier
 * is accepted only if it kept the text, as koa-body does with `includeUnparsed: true`; that text
 * is re-encoded as UTF-8, which is byte-exact for any valid UTF-8 body without a BOM.
 */
export async function readRawBody(ctx: Context, limitBytes = DEFAULT_SIGNED_BODY_LIMIT_BYTES): Promise<Buffer> {
  const remembered = rawBodies.get(ctx.req);
  if (remembered) return remembered;
  const kept: unknown = (ctx.request as { rawBody?: unknown }).rawBody;
  if (typeof kept === 'string' || Buffer.isBuffer(kept)) {
    const bytes = typeof kept === 'string' ? Buffer.from(kept, 'utf8') : kept;
    rawBodies.set(ctx.req, bytes);
    return bytes;
  }
  if (ctx.req.readableEnded || ctx.req.readableDidRead) {
    // A misconfigured body parser would otherwise make every signature check run on an empty body.
    throw new Error(
      'request body was consumed before signature verification without keeping the raw text: ' +
        'mount the body parser after the signed-request middleware, or use koa-body with includeUnparsed: true',
    );
  }
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  const bytes = await readStream(ctx.req, limitBytes);
  rawBodies.set(ctx.req, bytes);
  return bytes;
}

function readStream(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    req.on('data', (chunk: Buffer | string) => {
      if (settled) return; // keep draining after a 413 so the response can still be written
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      size += buffer.length;
      if (size > limitBytes) {
        chunks.length = 0;
        settle(() => reject(tooLarge(limitBytes)));
        return;
      }
      chunks.push(buffer);
    });
    req.once('end', () => settle(() => resolve(Buffer.concat(chunks, size))));
    req.once('error', (error) => settle(() => reject(error)));
    req.once('close', () => settle(() => reject(new Error('request closed before its body was received'))));
  });
}

function tooLarge(limitBytes: number): SignedRequestError {
  return new SignedRequestError(413, 'ERR_REQUEST_BODY_TOO_LARGE', `request body exceeds ${limitBytes} bytes`);
}

function roleRank(role: string): number {
  return (SIGNED_REQUEST_ROLES as readonly string[]).indexOf(role);
}

/** Node joins a repeated header with `, `, which no signing header accepts: ambiguity is refused. */
function singleHeader(ctx: Context, name: string): string | undefined {
  const value = ctx.req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
