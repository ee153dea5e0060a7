import { describe, expect, it } from 'vitest';
import { claimAt, IdentityClaimError, principalFromIdentityClaims } from '../identity-claims.js';
import { parseProviderAlgorithms } from '../provider-algorithms.js';

const names = { subject: 'sub', tenant: 'tenant', role: 'role' };

describe('claimAt', () => {
  it('prefers a top-level claim of the whole name, then walks a dotted path', () => {
    const payload = { 'https://example.com/tenant': 'acme', realm_access: { roles: ['member'] }, a: { b: 1 }, 'a.b': 2 };
    expect(claimAt(payload, 'https://example.com/tenant')).toBe('acme');
    expect(claimAt(payload, 'realm_access.roles')).toEqual(['member']);
    expect(claimAt(payload, 'a.b')).toBe(2);
    expect(claimAt(payload, 'realm_access.missing')).toBeUndefined();
    expect(claimAt({ list: ['x'] }, 'list.0')).toBeUndefined();
    expect(claimAt({}, 'constructor')).toBeUndefined();
    expect(claimAt({}, 'toString.name')).toBeUndefined();
  });
});

describe('principalFromIdentityClaims', () => {
  it('maps subject, tenant and the highest known role of a list, whatever the case', () => {
    expect(principalFromIdentityClaims({ sub: 'svc-1', tenant: 'acme', role: ['viewer', 'Admin', 'superuser'] }, names)).toEqual({
      subject: 'svc-1',
      tenantId: 'acme',
      role: 'ADMIN',
      authMethod: 'bearer',
    });
    expect(principalFromIdentityClaims({ sub: 's', tenant: 'acme', role: 'member' }, names).role).toBe('MEMBER');
  });

  it('reads the claims the settings name', () => {
    const payload = { client_id: 'svc', 'https://acme.example/tenant': 'acme', realm_access: { roles: ['offline_access', 'member'] } };
    const principal = principalFromIdentityClaims(payload, { subject: 'client_id', tenant: 'https://acme.example/tenant', role: 'realm_access.roles' });
    expect(principal).toMatchObject({ subject: 'svc', tenantId: 'acme', role: 'MEMBER' });
  });

  it('folds ASCII letters only: a look-alike of a role name is no role', () => {
    expect(principalFromIdentityClaims({ sub: 's', tenant: 'acme', role: 'adm\u0131n' }, names).role).toBeNull();
  });

  it('authenticates a token with no known role, which then may do nothing', () => {
    expect(principalFromIdentityClaims({ sub: 's', tenant: 'acme', role: ['offline_access'] }, names).role).toBeNull();
  });

  it.each([
    [{ tenant: 'acme', role: 'member' }, 'sub'],
    [{ sub: '', tenant: 'acme', role: 'member' }, 'sub'],
    [{ sub: 'x'.repeat(257), tenant: 'acme', role: 'member' }, 'sub'],
    [{ sub: 's', role: 'member' }, 'tenant'],
    [{ sub: 's', tenant: 'ac me', role: 'member' }, 'tenant'],
    [{ sub: 's', tenant: 'acme' }, 'role'],
    [{ sub: 's', tenant: 'acme', role: { admin: true } }, 'role'],
  ])('refuses %j naming the claim', (payload, claim) => {
    expect(() => principalFromIdentityClaims(payload, names)).toThrow(IdentityClaimError);
    expect(() => principalFromIdentityClaims(payload, names)).toThrow(`\`${claim}\``);
  });
});

describe('parseProviderAlgorithms', () => {
  it('takes asymmetric algorithms, once each', () => {
    expect(parseProviderAlgorithms('RS256, ES256,RS256,EdDSA')).toEqual(['RS256', 'ES256', 'EdDSA']);
  });

  it.each(['HS256', 'none', 'RS256,HS512', 'rs256', ''])('refuses %j', (text) => {
    expect(() => parseProviderAlgorithms(text)).toThrow();
  });
});
