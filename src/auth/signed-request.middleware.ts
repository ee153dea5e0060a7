import type { IncomingMessage } from 'node:http';
import type { Middleware, ParameterizedContext } from 'koa';
import { isValidTenantId, SERVICE_ACTOR_PREFIXES } from '../kernel/index.js';
import type { TenantRepository } from '../tenants/index.js';
import { AuthErrorCode, AuthorizationError } from './auth-errors.js';
import type { NonceGuard } from './nonce-guard.js';
import type { AuthState, Principal } from './principal.js';
import type { TrustedGateway } from './trusted-gateway.js';
import {
  DEFAULT_SIGNATURE_WINDOW_SECONDS,
  SIGNING_HEADERS,
  checkSigningHeaders,
  verifySignature,
} from './request-signature.js';
import { isRole, ROLES, roleSatisfies, type Role } from './roles.js';

export const SignedRequestErrorCode = {
  /** Same codes as the REST tenant header check: one condition, one code, whatever the endpoint. */
  TENANT_HEADER_MISSING: 'ERR_TENANT_HEADER_MISSING',
  TENANT_HEADER_INVALID: 'ERR_TENANT_HEADER_INVALID',
  BODY_TOO_LARGE: 'ERR_REQUEST_BODY_TOO_LARGE',
  BODY_INCOMPLETE: 'ERR_REQUEST_BODY_INCOMPLETE',
  ENCODING_UNSUPPORTED: 'ERR_REQUEST_ENCODING_UNSUPPORTED',
  SIGNATURE_MISSING: 'ERR_AUTH_SIGNATURE_MISSING',
  SIGNATURE_INVALID: 'ERR_AUTH_SIGNATURE_INVALID',
  TIMESTAMP_STALE: 'ERR_AUTH_TIMESTAMP_STALE',
  NONCE_REUSED: 'ERR_AUTH_NONCE_REUSED',
  ROLE_INSUFFICIENT: AuthErrorCode.ROLE_INSUFFICIENT,
} as const;

/**
 * The 400 and 413 answers of the middleware (its 403s are AuthorizationError). `expose` lets the
 * outermost error middleware send `message` and `code` as they are.
 */
export class SignedRequestError extends Error {
  override readonly name = 'SignedRequestError';
  readonly expose = true;
  constructor(
    readonly status: 400 | 413,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a verified request leaves in `ctx.state.auth` (besides `principal` and `tenantId`). */
export interface SignedRequestAuth {
  tenantId: string;
  role: Role;
  actorId: string;
  method: 'signature' | 'gateway';
}

export interface SignedRequestState extends AuthState {
  auth?: SignedRequestAuth | undefined;
}

export type SignedRequestContext = ParameterizedContext<SignedRequestState>;

export interface SignedRequestAuthOptions {
  tenants: Pick<TenantRepository, 'activeSecrets'>;
  nonceGuard: NonceGuard;
  /** ± seconds around server time; the nonce guard must remember nonces for twice this. */
  windowSeconds?: number;
  minRole: Role;
  /**
   * Consulted only for requests that carry `Authorization: Bearer` and no signature. Resolving true
   * lets the request through unsigned: the callback has then verified the token, its tenant against
   * `X-Tenant-Id` and its role against `minRole`, and set `ctx.state.principal` (or thrown 401/403).
   * Resolving false falls through to the signature check, which then reports the missing signature.
   */
  allowBearer?: (ctx: SignedRequestContext, minRole: Role) => Promise<boolean>;
  /**
   * TRUSTED_GATEWAY_CIDRS: a request from the gateway with no credentials of its own is taken as
   * the tenant and role its headers name. Without it, such a request is refused as unsigned.
   */
  gateway?: TrustedGateway | undefined;
  /** Largest body read for hashing; larger bodies get 413. Defaults to 1 MiB. */
  bodyLimitBytes?: number;
  /** Unix seconds; tests move the clock with it. */
  nowSeconds?: () => number;
}

export const DEFAULT_SIGNED_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Authenticates GraphQL and evaluation requests by their HMAC signature (src/auth/request-signing.md).
 * Checks, cheapest first: tenant header (400), signing headers present, role, timestamp window,
 * signature over the exact raw body, and only then the nonce, so a forged request burns nothing.
 */
export function createSignedRequestAuth(options: SignedRequestAuthOptions): Middleware<SignedRequestState> {
  const windowSeconds = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_SIGNED_BODY_LIMIT_BYTES;
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  if (!isRole(options.minRole)) throw new RangeError(`unknown minimum role ${String(options.minRole)}`);
  const minRole = options.minRole;

  return async function signedRequestAuth(ctx, next) {
    const tenantId = singleHeader(ctx, SIGNING_HEADERS.tenantId);
    if (tenantId === undefined || tenantId === '') {
      throw new SignedRequestError(400, SignedRequestErrorCode.TENANT_HEADER_MISSING, 'missing X-Tenant-Id header');
    }
    if (!isValidTenantId(tenantId)) {
      throw new SignedRequestError(
        400,
        SignedRequestErrorCode.TENANT_HEADER_INVALID,
        "X-Tenant-Id must be 1-64 characters of letters, digits, '_' or '-'",
      );
    }

    const signatureHeader = singleHeader(ctx, SIGNING_HEADERS.signature);
    if (options.allowBearer && signatureHeader === undefined && /^Bearer\s/i.test(ctx.get('authorization'))) {
      if (await options.allowBearer(ctx, minRole)) return next();
    }
    // A request with no credentials of its own, straight from a trusted gateway: the gateway has
    // authenticated the caller and vouches for the tenant and role it names.
    if (options.gateway && signatureHeader === undefined && ctx.get('authorization') === '' && options.gateway.trusts(ctx.req)) {
      const role = claimedRole(ctx, minRole);
      const actorId = `${SERVICE_ACTOR_PREFIXES.gateway}${role}`;
      ctx.state.tenantId = tenantId;
      ctx.state.principal = { subject: actorId, tenantId, role, authMethod: 'gateway' };
      ctx.state.auth = { tenantId, role, actorId, method: 'gateway' };
      return next();
    }

    const headers = {
      signatureHeader,
      timestamp: singleHeader(ctx, SIGNING_HEADERS.timestamp),
      nonce: singleHeader(ctx, SIGNING_HEADERS.nonce),
    };
    const now = nowSeconds();
    const precheck = checkSigningHeaders(headers, { nowSeconds: now, windowSeconds });
    if (!precheck.ok && precheck.code === SignedRequestErrorCode.SIGNATURE_MISSING) {
      // Where a token also works, a caller with neither must learn of both ways in.
      const either = options.allowBearer ? '; sign the request with those headers, or send `Authorization: Bearer <token>` instead' : '';
      throw new AuthorizationError(precheck.code, `${precheck.message}${either}`);
    }

    const role = claimedRole(ctx, minRole);
    if (!precheck.ok) throw new AuthorizationError(precheck.code, precheck.message);

    const secrets = (await options.tenants.activeSecrets(tenantId)).map((s) => s.secret);
    const body = await readRawBody(ctx, bodyLimitBytes);
    // An unknown tenant gets the same answer as a wrong signature: existence is not disclosed.
    const verified = verifySignature({
      ...headers,
      method: ctx.method,
      pathWithQuery: ctx.originalUrl,
      body,
      tenantId,
      role,
      secrets,
      nowSeconds: now,
      windowSeconds,
    });
    if (!verified.ok) throw new AuthorizationError(verified.code, verified.message);

    if (!(await options.nonceGuard.claim(tenantId, verified.nonce))) {
      throw new AuthorizationError(
        SignedRequestErrorCode.NONCE_REUSED,
        'X-Policy-Nonce was already used: sign every request, including retries, with a fresh nonce',
      );
    }

    const actorId = `${SERVICE_ACTOR_PREFIXES.signed}${tenantId}`;
    const principal: Principal = { subject: actorId, tenantId, role, authMethod: 'signature' };
    ctx.state.tenantId = tenantId;
    ctx.state.principal = principal;
    ctx.state.auth = { tenantId, role, actorId, method: 'signature' };
    return next();
  };
}

/** The parts of a Koa context the reader needs (any state type fits). */
export interface RawBodySource {
  req: IncomingMessage;
  get(field: string): string;
}

const rawBodies = new WeakMap<IncomingMessage, Buffer>();

/**
 * Remembers the body a parser read from the request, as the bytes received (not text decoded
 * from them: decoding drops a byte order mark and replaces invalid sequences, so another body
 * would pass for the one signed). Parsers that run before the signed-request middleware call it.
 */
export function keepRawBody(req: IncomingMessage, bytes: Buffer): void {
  rawBodies.set(req, bytes);
}

/**
 * The request body exactly as received, read once and remembered for the request: the bytes a
 * parser kept with `keepRawBody`, or else the stream, read here. Parsers on signed routes that run
 * later must parse from this buffer (the stream is consumed).
 */
export async function readRawBody(ctx: RawBodySource, limitBytes = DEFAULT_SIGNED_BODY_LIMIT_BYTES): Promise<Buffer> {
  const remembered = rawBodies.get(ctx.req);
  if (remembered) return remembered;
  // The signature covers the bytes as sent; a parser that inflated them kept other bytes. The
  // service's body parser refuses encoded bodies first; this covers apps mounted without it.
  const encoding = ctx.get('content-encoding').trim();
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
    throw new SignedRequestError(
      400,
      SignedRequestErrorCode.ENCODING_UNSUPPORTED,
      `Content-Encoding \`${encoding.slice(0, 64)}\` is not supported: send the request body uncompressed (Content-Encoding: identity or none)`,
    );
  }
  if (ctx.req.readableEnded || ctx.req.readableDidRead) {
    // A misconfigured body parser would otherwise make every signature check run on an empty body.
    throw new Error(
      'request body was consumed before signature verification without keeping its bytes: ' +
        'mount the body parser after the signed-request middleware, or have it pass the bytes it read to keepRawBody',
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
    req.once('close', () =>
      settle(() => reject(new SignedRequestError(400, SignedRequestErrorCode.BODY_INCOMPLETE, 'request body ended before it was complete: the client closed the connection'))),
    );
  });
}

function tooLarge(limitBytes: number): SignedRequestError {
  return new SignedRequestError(413, SignedRequestErrorCode.BODY_TOO_LARGE, `request body exceeds the limit of ${limitBytes} bytes`);
}

/** The role X-User-Role claims, if it is known and at least `minRole`; a 403 otherwise. */
function claimedRole(ctx: { req: IncomingMessage }, minRole: Role): Role {
  const role = singleHeader(ctx, SIGNING_HEADERS.role);
  if (role === undefined || !isRole(role)) {
    throw new AuthorizationError(
      SignedRequestErrorCode.ROLE_INSUFFICIENT,
      role === undefined
        ? `missing X-User-Role header (this endpoint requires ${minRole})`
        : `unknown role \`${role}\` in X-User-Role (known roles: ${ROLES.join(', ')})`,
    );
  }
  if (!roleSatisfies(role, minRole)) {
    throw new AuthorizationError(SignedRequestErrorCode.ROLE_INSUFFICIENT, `role ${role} is not allowed here: this endpoint requires ${minRole} or higher`);
  }
  return role;
}

/** Node joins a repeated header with `, `, which no signing header accepts: ambiguity is refused. */
function singleHeader(ctx: { req: IncomingMessage }, name: string): string | undefined {
  const value = ctx.req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
