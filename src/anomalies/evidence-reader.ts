import type { PolicyActivation, PolicyRepository, RollupRepository, RollupTotals } from '../store/index.js';
import type { DetectionWindow, VersionEvidence, VersionStanding } from './assessment.js';
import type { DetectionSettings } from './detection-settings.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * The window ends now and starts at the minute `windowMinutes` ago (rollups are per minute); the
 * baseline is the `baselineDays` just before it.
 */
export function detectionWindow(now: Date, settings: Pick<DetectionSettings, 'windowMinutes' | 'baselineDays'>): DetectionWindow {
  const start = Math.floor((now.getTime() - settings.windowMinutes * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  return {
    baselineStart: new Date(start - settings.baselineDays * DAY_MS).toISOString(),
    start: new Date(start).toISOString(),
    end: now.toISOString(),
  };
}

export interface EvidenceSources {
  rollups: Pick<RollupRepository, 'totals'>;
  policies: Pick<PolicyRepository, 'listActivations' | 'getVersion'>;
  /** Modules the service ships: their version 0 is active until a tenant activates another. */
  builtinModules: ReadonlySet<string>;
}

export interface VersionRef {
  policyModule: string;
  policyFunction: string;
  version: number;
}

export interface EvidenceSet {
  evidence: VersionEvidence[];
  /** Rollup buckets read for it (window and baseline). */
  buckets: number;
}

function refKey(ref: VersionRef): string {
  return `${ref.policyModule}:${ref.policyFunction}:${ref.version}`;
}

/**
 * Where `version` stands in the module's activation log: the head names the active version; a
 * version stopped being active at the activation after the last one that activated it. A version
 * never activated has never been active, so it counts as superseded since it was stored.
 */
export async function versionStanding(
  version: number,
  activations: readonly PolicyActivation[],
  builtin: boolean,
  createdAt: () => Promise<string | null>,
): Promise<VersionStanding> {
  const head = activations.at(-1);
  const activeVersion = head !== undefined ? head.version : builtin ? 0 : null;
  if (version === activeVersion) return { activeVersion, supersededSince: null };
  for (let i = activations.length - 2; i >= 0; i -= 1) {
    if (activations[i]!.version === version) return { activeVersion, supersededSince: activations[i + 1]!.occurredAt };
  }
  if (version === 0 && builtin) return { activeVersion, supersededSince: activations[0]?.occurredAt ?? null };
  return { activeVersion, supersededSince: await createdAt() };
}

/**
 * The evidence of every version evaluated in the window (rollup sums of the window and the
 * baseline, and the version's standing), or of the versions named in `only`, evaluated or not.
 */
export async function readEvidence(
  sources: EvidenceSources,
  tenantId: string,
  window: DetectionWindow,
  only?: readonly VersionRef[],
): Promise<EvidenceSet> {
  const [recent, past] = await Promise.all([
    sources.rollups.totals(tenantId, { from: window.start, to: window.end }),
    sources.rollups.totals(tenantId, {
      from: window.baselineStart,
      to: new Date(Date.parse(window.start) - MINUTE_MS).toISOString(),
    }),
  ]);
  const baseline = new Map(past.map((totals) => [refKey(totals), totals]));
  const windowTotals = new Map(recent.map((totals) => [refKey(totals), totals]));
  const functionCounts = new Map<string, number>();
  for (const totals of recent) {
    const name = `${totals.policyModule}:${totals.policyFunction}`;
    functionCounts.set(name, (functionCounts.get(name) ?? 0) + totals.count);
  }
  const refs: readonly VersionRef[] = only ?? recent;
  const activations = new Map<string, Promise<PolicyActivation[]>>();
  const evidence = await Promise.all(
    refs.map(async (ref): Promise<VersionEvidence> => {
      const { policyModule, policyFunction, version } = ref;
      if (!activations.has(policyModule)) activations.set(policyModule, sources.policies.listActivations(tenantId, policyModule));
      const log = await activations.get(policyModule)!;
      const createdAt = async () => (await sources.policies.getVersion(tenantId, policyModule, version))?.createdAt ?? null;
      const standing = await versionStanding(version, log, sources.builtinModules.has(policyModule), createdAt);
      return {
        policyModule,
        policyFunction,
        version,
        window: windowTotals.get(refKey(ref)) ?? null,
        baseline: baseline.get(refKey(ref)) ?? null,
        functionWindowCount: functionCounts.get(`${policyModule}:${policyFunction}`) ?? 0,
        standing,
      };
    }),
  );
  const buckets = [...recent, ...past].reduce((sum, totals) => sum + totals.buckets, 0);
  return { evidence, buckets };
}
