import { createAnomalySettings, type AnomalySettings } from '../anomalies/index.js';
import type { AuditChainWriter } from '../audit/index.js';
import { detectionDefaults } from '../config/index.js';
import type { Runtime } from './runtime.js';

/** Per-tenant detection settings over the configured defaults (the API's settings routes and the detector read the same). */
export function anomalySettingsOf(runtime: Runtime, audit: AuditChainWriter): AnomalySettings {
  return createAnomalySettings({ repository: runtime.store.anomalySettings, defaults: detectionDefaults(runtime.config), audit });
}
