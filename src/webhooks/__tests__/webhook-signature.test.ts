import { beforeAll, describe, expect, it } from 'vitest';
import { readmeVerifier, type VerifyPolicyWebhook } from '../../../test/support/webhook-receiver.js';
import { generateWebhookSecret, signatureHeader } from '../webhook-signature.js';

describe('webhook signatures, checked with the receiver code of the README', () => {
  let verify: VerifyPolicyWebhook;
  beforeAll(async () => {
    verify = await readmeVerifier();
  });

  const body = JSON.stringify({ id: 'audit-1', type: 'POLICY_DEPLOYED', occurredAt: '2026-05-01T10:00:00.000Z', data: { policyModule: 'acme.prices', note: 'Grüße ✓' } });

  it('signs `t.body` with HMAC-SHA256 in the Stripe form', () => {
    // Fixed inputs, so a change of the signed text or its encoding shows.
    expect(signatureHeader('whsec_test', '{"a":1}', 1_700_000_000)).toBe('t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
  });

  it('is accepted by the receiver for the same secret and body within the tolerance', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const now = 1_800_000_000;
    const header = signatureHeader(secret, body, now - 100);
    expect(verify(secret, header, body, 300, now)).toBe(true);
  });

  it('is refused for another secret, a changed body, an old or future time, or a malformed header', () => {
    const secret = generateWebhookSecret();
    const now = 1_800_000_000;
    const header = signatureHeader(secret, body, now);
    expect(verify(generateWebhookSecret(), header, body, 300, now)).toBe(false);
    expect(verify(secret, header, body.replace('acme', 'acmf'), 300, now)).toBe(false);
    expect(verify(secret, signatureHeader(secret, body, now - 301), body, 300, now)).toBe(false);
    expect(verify(secret, signatureHeader(secret, body, now + 301), body, 300, now)).toBe(false);
    // The time is part of what is signed: moving it breaks the signature.
    expect(verify(secret, header.replace(`t=${now}`, `t=${now - 1}`), body, 300, now)).toBe(false);
    for (const bad of [undefined, '', 'v1=00', `t=${now}`, `t=${now},v1=zz`, `t=${now},v1=${'0'.repeat(64)}`]) expect(verify(secret, bad, body, 300, now)).toBe(false);
  });
});
