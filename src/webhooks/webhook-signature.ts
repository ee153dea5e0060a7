import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Policy-Webhook-Signature';
export const DELIVERY_ID_HEADER = 'X-Policy-Webhook-Id';

/** 256 random bits with a prefix that tells what it is when it turns up in a config file. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed by the subscription's secret, as
 * Stripe signs: the time inside the signed text lets a receiver refuse a replayed old delivery.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
