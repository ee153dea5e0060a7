import { describe, expect, it } from 'vitest';
import { looksLikeServiceActor, SERVICE_ACTOR_PREFIXES } from '../service-actors.js';

describe('looksLikeServiceActor', () => {
  it.each(['signed:acme', 'gateway:OWNER', 'system:anomaly-detect', 'workflow:0000', 'Gateway:OWNER', ' signed:acme', '\u200bgateway:OWNER', 'SYSTEM :x', 'work\u00adflow:1'])(
    'sees %j as one',
    (subject) => {
      expect(looksLikeServiceActor(subject)).toBe(true);
    },
  );

  it.each(['alice', 'svc-1', 'signed', 'gateways:x', 'user@example.com', 'system'])('does not see %j as one', (subject) => {
    expect(looksLikeServiceActor(subject)).toBe(false);
  });

  it('covers every prefix the service builds its actors with', () => {
    for (const prefix of Object.values(SERVICE_ACTOR_PREFIXES)) expect(looksLikeServiceActor(`${prefix}x`)).toBe(true);
  });
});
