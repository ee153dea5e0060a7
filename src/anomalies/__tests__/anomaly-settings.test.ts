import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditRecord } from '../../audit/index.js';
import { AnomalyError } from '../anomaly-errors.js';
import { anomalySettingsBodySchema, createAnomalySettings } from '../anomaly-settings.js';
import type { AnomalySettingsRecord } from '../anomaly-settings-store.js';
import { DEFAULT_DETECTION_SETTINGS } from '../detection-settings.js';

const TENANT = 'acme';

function settingsOverMemory() {
  const records = new Map<string, AnomalySettingsRecord>();
  const events: AuditEvent[] = [];
  const settings = createAnomalySettings({
    repository: {
      get: async (tenantId) => records.get(tenantId) ?? null,
      put: async (tenantId, record) => {
        records.set(tenantId, record);
      },
    },
    defaults: DEFAULT_DETECTION_SETTINGS,
    audit: {
      append: async (_tenantId, event) => {
        events.push(event);
        return {} as AuditRecord;
      },
    },
    now: () => new Date('2026-05-04T10:00:00.000Z'),
  });
  return { settings, records, events };
}

/** The 400 message of a refused body, or null when it is taken. */
async function refusal(body: unknown): Promise<string | null> {
  try {
    await settingsOverMemory().settings.replace(TENANT, body, 'admin');
    return null;
  } catch (error) {
    if (!(error instanceof AnomalyError) || error.status !== 400) throw error;
    return error.message;
  }
}

const SETTINGS = 'windowMinutes, baselineDays, minSamples, failureRateThreshold, zombieGraceMinutes, slowdownFactor, dismissCooldownHours, autoResolveMinutes';

describe('the anomaly settings body', () => {
  it('names every problem at once, in the order of the body, unknown names last', async () => {
    expect(await refusal({ slowdownFactor: 1, nonsense: 1, minSamples: 1.5, other: 2, windowMinutes: '60' })).toBe(
      '`slowdownFactor` must be a number between 1.01 and 1000 (got 1); `minSamples` must be a whole number between 1 and 1000000; ' +
        '`windowMinutes` must be a whole number between 5 and 1440; ' +
        `\`nonsense\`, \`other\` are not settings (settings: ${SETTINGS})`,
    );
    expect(await refusal({ nonsense: 1 })).toBe(`\`nonsense\` is not a setting (settings: ${SETTINGS})`);
    expect(await refusal({ failureRateThreshold: 2 })).toBe('`failureRateThreshold` must be a number between 0.0001 and 0.9999 (got 2)');
  });

  it('must be an object', async () => {
    for (const body of [undefined, null, [], 'text', 7]) {
      expect(await refusal(body), JSON.stringify(body)).toBe(`the body must be a JSON object of settings (${SETTINGS})`);
    }
  });

  it('takes null as the default, stores the rest in the order sent, and audits it', async () => {
    const { settings, events } = settingsOverMemory();
    const view = await settings.replace(TENANT, { slowdownFactor: 2, windowMinutes: null, minSamples: 20 }, 'admin');
    expect(Object.entries(view.overrides)).toEqual([
      ['slowdownFactor', 2],
      ['minSamples', 20],
    ]);
    expect(view.effective).toMatchObject({ slowdownFactor: 2, minSamples: 20, windowMinutes: DEFAULT_DETECTION_SETTINGS.windowMinutes });
    expect(events.map((event) => event.payload)).toEqual([{ overrides: { slowdownFactor: 2, minSamples: 20 } }]);
  });

  it('is declared as it is checked: the declared schema takes exactly the bodies the settings take', async () => {
    const bodies: unknown[] = [
      {},
      { minSamples: null },
      { minSamples: 1, windowMinutes: 1440, failureRateThreshold: 0.0001, slowdownFactor: 1000 },
      { zombieGraceMinutes: 0, dismissCooldownHours: 8760, baselineDays: 30 },
      { autoResolveMinutes: 0 },
      { autoResolveMinutes: 43200.5 },
      { minSamples: 0 },
      { minSamples: 1.5 },
      { minSamples: '5' },
      { minSamples: true },
      { minSamples: {} },
      { failureRateThreshold: 1 },
      { slowdownFactor: 1.01, extra: null },
      [],
      null,
      'text',
    ];
    for (const body of bodies) {
      expect(anomalySettingsBodySchema.safeParse(body).success, JSON.stringify(body)).toBe((await refusal(body)) === null);
    }
  });
});
