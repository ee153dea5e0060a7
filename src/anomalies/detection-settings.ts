/**
 * The knobs of anomaly detection: service-wide defaults (environment) that an ADMIN may override
 * per tenant. Each setting is declared once here with its bounds; the environment schema, the
 * settings endpoint and the detector all read this table.
 */
export const DETECTION_SETTING_BOUNDS = {
  /** Length of the recent window compared with the baseline. */
  windowMinutes: { min: 5, max: 1440, default: 60, integer: true },
  /** Length of the baseline, the days just before the window. */
  baselineDays: { min: 1, max: 30, default: 7, integer: true },
  /** Fewest evaluations (in the window, and in the baseline where one is compared) before a rule may fire. */
  minSamples: { min: 1, max: 1_000_000, default: 50, integer: true },
  /** HIGH_FAILURE_RATE fires above this failure fraction (and when the Wilson bound is above it too). */
  failureRateThreshold: { min: 0.0001, max: 0.9999, default: 0.05, integer: false },
  /** ZOMBIE_VERSION ignores a version superseded for less than this. */
  zombieGraceMinutes: { min: 0, max: 43_200, default: 60, integer: true },
  /** PERFORMANCE_DEGRADATION needs the window mean at least this many times the baseline mean. */
  slowdownFactor: { min: 1.01, max: 1000, default: 1.5, integer: false },
  /** A DISMISSED anomaly is not opened again for its key within this many hours of the dismissal. */
  dismissCooldownHours: { min: 0, max: 8760, default: 24, integer: true },
  /** The detector resolves an OPEN anomaly whose condition has not held for this long; 0: never. */
  autoResolveMinutes: { min: 0, max: 43_200, default: 30, integer: true },
} as const;

export type DetectionSettingName = keyof typeof DETECTION_SETTING_BOUNDS;
export type DetectionSettings = { [K in DetectionSettingName]: number };

export const DETECTION_SETTING_NAMES = Object.keys(DETECTION_SETTING_BOUNDS) as DetectionSettingName[];

/** PERFORMANCE_DEGRADATION needs a one-sided Welch test below this p-value. */
export const SLOWDOWN_SIGNIFICANCE = 0.01;

export const DEFAULT_DETECTION_SETTINGS: Readonly<DetectionSettings> = Object.freeze(
  Object.fromEntries(DETECTION_SETTING_NAMES.map((name) => [name, DETECTION_SETTING_BOUNDS[name].default])) as DetectionSettings,
);

/** Why a value is out of bounds, or null when it is fine. */
export function settingProblem(name: DetectionSettingName, value: unknown): string | null {
  const bounds = DETECTION_SETTING_BOUNDS[name];
  const kind = bounds.integer ? 'a whole number' : 'a number';
  if (typeof value !== 'number' || !Number.isFinite(value) || (bounds.integer && !Number.isInteger(value))) {
    return `\`${name}\` must be ${kind} between ${bounds.min} and ${bounds.max}`;
  }
  if (value < bounds.min || value > bounds.max) return `\`${name}\` must be ${kind} between ${bounds.min} and ${bounds.max} (got ${value})`;
  return null;
}

/** The settings in force for a tenant: its overrides over the defaults; unknown names are ignored. */
export function effectiveSettings(defaults: Readonly<DetectionSettings>, overrides: Readonly<Record<string, number>> | null): DetectionSettings {
  const settings = { ...defaults };
  if (overrides === null) return settings;
  for (const name of DETECTION_SETTING_NAMES) {
    const value = overrides[name];
    if (value !== undefined && settingProblem(name, value) === null) settings[name] = value;
  }
  return settings;
}
