import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

export interface JwksKeysOptions {
  url: URL;
  /** An unknown `kid` refetches the set at most once per this many seconds (JWT_JWKS_COOLDOWN_SECONDS). */
  cooldownSeconds: number;
  /** One fetch, connection and body included, gives up after this long. */
  timeoutMs: number;
  /** A larger answer is refused unread: no identity provider publishes more than a few keys. */
  maxBytes: number;
  /** Told of each failed fetch (logged by the caller), and whether keys fetched before stay in use. */
  onFetchFailure?: (reason: string, keptKeys: boolean) => void;
  /** Milliseconds; tests move the clock with it. */
  now?: () => number;
}

/** The key set could not be fetched and none was fetched before: a 503, not the caller's fault. */
export class JwksUnavailableError extends Error {
  override readonly name = 'JwksUnavailableError';
  constructor(
    message: string,
    /** When the next fetch may be tried: the rest of the cooldown. */
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Set sizes beyond this are not key sets but something else answering at the URL. */
export const DEFAULT_JWKS_MAX_BYTES = 256 * 1024;
/** Keys are fetched again this often even when every `kid` is known, so removed keys go. */
const KEY_SET_MAX_AGE_MS = 10 * 60_000;

/**
 * The identity provider's published keys (JWKS), fetched on first use and cached. jose refetches
 * on an unknown `kid` only after the cooldown, so a flood of made-up key ids costs one fetch per
 * cooldown. A failed refresh keeps the keys fetched before (an identity provider that is down does
 * not lock out tokens it signed earlier); with no keys yet, failures are not retried within the
 * cooldown either, so the provider is not hammered while it is down.
 */
export function createJwksKeys(options: JwksKeysOptions): JWTVerifyGetKey {
  const now = options.now ?? Date.now;
  const cooldownMs = options.cooldownSeconds * 1000;
  let lastGoodText: string | undefined;
  let lastFailureAt = Number.NEGATIVE_INFINITY;

  async function fetchKeySet(url: string, init: RequestInit): Promise<Response> {
    const waitMs = lastFailureAt + cooldownMs - now();
    if (lastGoodText === undefined && waitMs > 0) {
      throw new JwksUnavailableError('the identity provider\'s key set could not be fetched moments ago; not retried before the cooldown ends', Math.ceil(waitMs / 1000));
    }
    try {
      const response = await fetch(url, init);
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`it answered HTTP ${response.status}`);
      }
      const text = await readLimited(response, options.maxBytes);
      // jose's own check of a key set, here, so that junk counts as a failed fetch (and so keeps
      // the keys fetched before and the cooldown) instead of breaking every verification after it.
      try {
        createLocalJWKSet(JSON.parse(text) as JSONWebKeySet);
      } catch {
        throw new Error('its answer is not a JSON Web Key Set');
      }
      lastGoodText = text;
      return jsonResponse(text);
    } catch (error) {
      lastFailureAt = now();
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (error as Error).message;
      options.onFetchFailure?.(reason, lastGoodText !== undefined);
      if (lastGoodText !== undefined) return jsonResponse(lastGoodText);
      throw new JwksUnavailableError(`the identity provider's key set (JWT_JWKS_URL) could not be fetched: ${reason}`, options.cooldownSeconds, { cause: error });
    }
  }

  return createRemoteJWKSet(options.url, {
    cooldownDuration: cooldownMs,
    timeoutDuration: options.timeoutMs,
    cacheMaxAge: KEY_SET_MAX_AGE_MS,
    [customFetch]: fetchKeySet,
  });
}

function jsonResponse(text: string): Response {
  return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`its answer of ${declared} bytes exceeds the limit of ${maxBytes}`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`its answer exceeds the limit of ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
