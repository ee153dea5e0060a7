import { z } from 'zod';
import type { AuditRecorder } from '../audit/index.js';
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
  audit: Pick<AuditRecorder, 'append'>;
  now?: () => Date;
}

function invalid(message: string): AnomalyError {
  return new AnomalyError(400, AnomalyErrorCode.REQUEST_INVALID, message);
}

/**
 * The PUT body, for the route and its OpenAPI document alike: any of the settings, each within its
 * bounds; null or absent follows the default; unknown names are refused, not ignored.
 */
export const anomalySettingsBodySchema = z.strictObject(
  Object.fromEntries(
    DETECTION_SETTING_NAMES.map((name) => {
      const { min, max, integer } = DETECTION_SETTING_BOUNDS[name];
      const number = integer ? z.number().int() : z.number();
      return [name, number.min(min).max(max).nullable().optional()];
    }),
  ),
);

/**
 * Why `body` failed the schema, naming its problems at once in the body's order (the unknown names
 * together, the first few of them: see listNames). The schema decides what fails; settingProblem,
 * reading the same bounds, says why.
 */
function bodyProblem(body: unknown, issues: readonly z.core.$ZodIssue[]): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return `the body must be a JSON object of settings (${DETECTION_SETTING_NAMES.join(', ')})`;
  }
  const failed = new Set(issues.map((issue) => issue.path[0]));
  const unknown = issues.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys : []));
  const problems = Object.entries(body).flatMap(([name, value]) =>
    failed.has(name) ? [settingProblem(name as DetectionSettingName, value) ?? `\`${name}\` is not valid`] : [],
  );
  if (unknown.length > 0) {
    problems.push(`${listNames(unknown)} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} (settings: ${DETECTION_SETTING_NAMES.join(', ')})`);
  }
  return listProblems(problems, (problem) => problem);
}

/** The tenant's overrides in `body`, in the body's order; a null setting is left out (it follows the default). */
function parseOverrides(body: unknown): Partial<DetectionSettings> {
  const parsed = anomalySettingsBodySchema.safeParse(body);
  if (!parsed.success) throw invalid(bodyProblem(body, parsed.error.issues));
  return Object.fromEntries(Object.entries(body as object).filter(([, value]) => value !== null)) as Partial<DetectionSettings>;
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
