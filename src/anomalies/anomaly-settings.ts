import type { AuditChainWriter } from '../audit/index.js';
import { listNames, listProblems } from '../errors/index.js';
import { AnomalyError, AnomalyErrorCode } from './anomaly-errors.js';
import { settingsChangedEvent } from './anomaly-events.js';
import type { AnomalySettingsRepository } from './anomaly-settings-store.js';
import {
  DETECTION_SETTING_BOUNDS,
  DETECTION_SETTING_NAMES,
  effectiveSettings,
  settingProblem,
  type DetectionSettingName,
  type DetectionSettings,
} from './detection-settings.js';

/** What GET and PUT of a tenant's settings answer. */
export interface AnomalySettingsView {
  /** The service-wide defaults (environment). */
  defaults: DetectionSettings;
  /** The tenant's own values; absent names follow the defaults. */
  overrides: Partial<DetectionSettings>;
  /** What detection and verification use for the tenant. */
  effective: DetectionSettings;
  /** Each setting's bounds, so a client can check before it sends. */
  bounds: typeof DETECTION_SETTING_BOUNDS;
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface AnomalySettings {
  effective(tenantId: string): Promise<DetectionSettings>;
  view(tenantId: string): Promise<AnomalySettingsView>;
  /** Replaces the tenant's overrides with `body` (an object of setting names to numbers; null or absent: the default). */
  replace(tenantId: string, body: unknown, actorId: string): Promise<AnomalySettingsView>;
}

export interface AnomalySettingsDeps {
  repository: AnomalySettingsRepository;
  defaults: Readonly<DetectionSettings>;
  audit: Pick<AuditChainWriter, 'append'>;
  now?: () => Date;
}

function invalid(message: string): AnomalyError {
  return new AnomalyError(400, AnomalyErrorCode.REQUEST_INVALID, message);
}

/**
 * Checks a whole body and names its problems at once (the unknown names together, the first few
 * of them: see listNames); unknown names are refused, not ignored.
 */
function parseOverrides(body: unknown): Partial<DetectionSettings> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid(`the body must be a JSON object of settings (${DETECTION_SETTING_NAMES.join(', ')})`);
  }
  const overrides: Partial<DetectionSettings> = {};
  const problems: string[] = [];
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (!(DETECTION_SETTING_NAMES as string[]).includes(name)) {
      unknown.push(name);
      continue;
    }
    if (value === null) continue;
    const problem = settingProblem(name as DetectionSettingName, value);
    if (problem !== null) problems.push(problem);
    else overrides[name as DetectionSettingName] = value as number;
  }
  if (unknown.length > 0) {
    problems.push(`${listNames(unknown)} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} (settings: ${DETECTION_SETTING_NAMES.join(', ')})`);
  }
  if (problems.length > 0) throw invalid(listProblems(problems, (problem) => problem));
  return overrides;
}

export function createAnomalySettings(deps: AnomalySettingsDeps): AnomalySettings {
  const now = deps.now ?? (() => new Date());
  const defaults = { ...deps.defaults };

  async function view(tenantId: string): Promise<AnomalySettingsView> {
    const record = await deps.repository.get(tenantId);
    const overrides = (record?.values ?? {}) as Partial<DetectionSettings>;
    return {
      defaults,
      overrides,
      effective: effectiveSettings(defaults, record?.values ?? null),
      bounds: DETECTION_SETTING_BOUNDS,
      updatedAt: record?.updatedAt ?? null,
      updatedBy: record?.actorId ?? null,
    };
  }

  return {
    async effective(tenantId) {
      const record = await deps.repository.get(tenantId);
      return effectiveSettings(defaults, record?.values ?? null);
    },
    view,
    async replace(tenantId, body, actorId) {
      const values = parseOverrides(body) as Record<string, number>;
      const updatedAt = now().toISOString();
      await deps.repository.put(tenantId, { values, actorId, updatedAt });
      await deps.audit.append(tenantId, settingsChangedEvent(actorId, values, updatedAt));
      return view(tenantId);
    },
  };
}
