import { createAnomalySettings, type AnomalySettings } from '../anomalies/index.js';
import type { AuditRecorder } from '../audit/index.js';
import { detectionDefaults } from '../config/index.js';
import type { Runtime } from './runtime.js';

/** Per-tenant detection settings over the configured defaults (the API's settings routes and the detector read the same). */
export function anomalySettingsOf(runtime: Runtime, audit: AuditRecorder): AnomalySettings {
  return createAnomalySettings({ repository: runtime.store.anomalySettings, defaults: detectionDefaults(runtime.config), audit });
}
