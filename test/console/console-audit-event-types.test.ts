// The console is served as written (no build step), so it keeps its own copy of the list it offers
// as a filter; this holds it to the service's.
import { expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES as CONSOLE_AUDIT_EVENT_TYPES } from '../../console/audit-api.js';
import { AUDIT_EVENT_TYPES } from '../../src/api/audit-event-types.js';

it('the console filters the audit chain by exactly the event types the service records', () => {
  expect(CONSOLE_AUDIT_EVENT_TYPES).toEqual(AUDIT_EVENT_TYPES);
});
