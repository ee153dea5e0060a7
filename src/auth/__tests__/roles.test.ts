import { describe, expect, it } from 'vitest';
import { highestRole, roleSatisfies, ROLES } from '../index.js';

describe('roles', () => {
  it('orders VIEWER < MEMBER < ADMIN < OWNER', () => {
    expect(ROLES).toEqual(['VIEWER', 'MEMBER', 'ADMIN', 'OWNER']);
    expect(roleSatisfies('OWNER', 'ADMIN')).toBe(true);
    expect(roleSatisfies('ADMIN', 'ADMIN')).toBe(true);
    expect(roleSatisfies('MEMBER', 'ADMIN')).toBe(false);
    expect(roleSatisfies('VIEWER', 'MEMBER')).toBe(false);
    expect(roleSatisfies(null, 'VIEWER')).toBe(false);
  });

  it('takes the highest known role and ignores unknown names', () => {
    expect(highestRole(['VIEWER', 'ADMIN', 'MEMBER'])).toBe('ADMIN');
    expect(highestRole(['ROOT', 'MEMBER', 42])).toBe('MEMBER');
    expect(highestRole(['admin'])).toBeNull();
    expect(highestRole([])).toBeNull();
  });
});
