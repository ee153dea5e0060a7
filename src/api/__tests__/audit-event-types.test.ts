import { describe, expect, it } from 'vitest';
import { ANOMALY_AUDIT_EVENT_TYPES } from '../../anomalies/index.js';
import { EVALUATION_AUDIT_EVENT_TYPES } from '../../evaluation/index.js';
import { POLICY_AUDIT_EVENT_TYPES } from '../../policies/index.js';
import { AUDIT_EVENT_TYPES } from '../audit-event-types.js';

describe('the audit event types', () => {
  it('are those of evaluation, the registry and anomalies, in the order the API lists them', () => {
    expect(AUDIT_EVENT_TYPES).toEqual([
      'POLICY_EVALUATED',
      'SOURCE_EVALUATED',
      'POLICY_DEPLOYED',
      'POLICY_ROLLED_BACK',
      'POLICY_ROLLOUT_STARTED',
      'POLICY_ROLLOUT_PROMOTED',
      'POLICY_ROLLOUT_ABORTED',
      'ANOMALY_DETECTED',
      'ANOMALY_STATUS_CHANGED',
      'ANOMALY_SETTINGS_CHANGED',
    ]);
    expect(AUDIT_EVENT_TYPES).toEqual([...EVALUATION_AUDIT_EVENT_TYPES, ...POLICY_AUDIT_EVENT_TYPES, ...ANOMALY_AUDIT_EVENT_TYPES]);
  });
});
