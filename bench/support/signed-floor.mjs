// What every signed answer costs at the least, shared by the floor servers of bench/http: read the
// body, verify the signature with the service's own code, claim the nonce in Redis (one SET NX).
import { verifySignature } from '../../dist/src/auth/request-signature.js';

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A check that answers 403 itself and resolves null, or resolves the verified request's body and tenant. */
export function signedFloorCheck({ secret, redis, keyPrefix }) {
  return async (ctx) => {
    const body = await readBody(ctx.req);
    const tenantId = ctx.get('x-tenant-id');
    const verified = verifySignature({
      signatureHeader: ctx.get('x-policy-signature'),
      timestamp: ctx.get('x-policy-timestamp'),
      nonce: ctx.get('x-policy-nonce'),
      method: ctx.method,
      pathWithQuery: ctx.originalUrl,
      body,
      tenantId,
      role: ctx.get('x-user-role'),
      secrets: [secret],
    });
    const fresh = verified.ok && (await redis.set(`${keyPrefix}${tenantId}:${verified.nonce}`, '1', 'EX', 600, 'NX')) === 'OK';
    if (!fresh) {
      ctx.status = 403;
      ctx.body = { error: 'signature or nonce refused' };
      return null;
    }
    return { body, tenantId };
  };
}
