/** A tenant's overrides of the detection defaults, replaced as a whole. */
export interface AnomalySettingsRecord {
  /** Setting name to value; names and ranges are the anomalies module's to check. */
  values: Record<string, number>;
  actorId: string;
  updatedAt: string;
}

export interface AnomalySettingsRepository {
  get(tenantId: string): Promise<AnomalySettingsRecord | null>;
  /** Replaces the tenant's overrides (last writer wins). */
  put(tenantId: string, record: AnomalySettingsRecord): Promise<void>;
}
