import type { PolicyActivation, PolicyRepository } from '../policies/index.js';
import type { RollupRepository, RollupTotals, RollupVersionKey } from '../rollups/index.js';
import type { DetectionWindow, VersionEvidence, VersionStanding } from './assessment.js';
import type { DetectionSettings } from './detection-settings.js';
import { TURN_EVERY, type TakeTurn } from './event-loop-turns.js';
import { pickInRotation } from './version-rotation.js';

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

export interface RoundEvidence {
  /** The versions to assess, in rotation order: those after the round's start first, then from the first. */
  evidence: VersionEvidence[];
  /** Versions evaluated in the window, assessed this round or not. */
  versions: number;
  /** Rollup buckets read (window and baseline). */
  buckets: number;
}

function functionKey(ref: RollupVersionKey): string {
  return `${ref.policyModule}\u0000${ref.policyFunction}`;
}

function versionKey(ref: RollupVersionKey): string {
  return `${functionKey(ref)}\u0000${ref.version}`;
}

/**
 * Where `version` stands in the module's activation log: the head names the active version (and a
 * running rollout's version, which stands beside it); a version stopped being active at the
 * activation after the last one that activated it. A version
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
  // A running rollout's version is meant to get traffic: never a zombie while it runs.
  if (head?.kind === 'ROLLOUT_STARTED' && head.rollout?.version === version) return { activeVersion, supersededSince: null };
  for (let i = activations.length - 2; i >= 0; i -= 1) {
    if (activations[i]!.version === version) return { activeVersion, supersededSince: activations[i + 1]!.occurredAt };
  }
  if (version === 0 && builtin) return { activeVersion, supersededSince: activations[0]?.occurredAt ?? null };
  // A version that only ever answered in a rollout stopped when the rollout was aborted.
  const aborted = activations.findLast((a) => a.kind === 'ROLLOUT_ABORTED' && a.rollout?.version === version);
  if (aborted !== undefined) return { activeVersion, supersededSince: aborted.occurredAt };
  return { activeVersion, supersededSince: await createdAt() };
}

/** The baseline: the buckets before the window, from `baselineStart` to the minute before it starts. */
function baselinePeriod(window: DetectionWindow) {
  return { from: window.baselineStart, to: new Date(Date.parse(window.start) - MINUTE_MS).toISOString() };
}

/** The version's buckets in the baseline summed; null when none. */
async function versionBaseline(sources: EvidenceSources, tenantId: string, window: DetectionWindow, ref: RollupVersionKey): Promise<RollupTotals | null> {
  const { policyModule, policyFunction, version } = ref;
  const [past] = await sources.rollups.totals(tenantId, { ...baselinePeriod(window), policyModule, policyFunction, version });
  return past ?? null;
}

/** Each version's standing, reading each module's activation log once. */
function standingReader(sources: EvidenceSources, tenantId: string) {
  const activations = new Map<string, Promise<PolicyActivation[]>>();
  return async (ref: RollupVersionKey): Promise<VersionStanding> => {
    const { policyModule, version } = ref;
    if (!activations.has(policyModule)) activations.set(policyModule, sources.policies.listActivations(tenantId, policyModule));
    const log = await activations.get(policyModule)!;
    const createdAt = async () => (await sources.policies.getVersion(tenantId, policyModule, version))?.createdAt ?? null;
    return versionStanding(version, log, sources.builtinModules.has(policyModule), createdAt);
  };
}

/**
 * The evidence of at most `limit` versions evaluated in the window, in rotation order from the
 * first after `after` (see version-rotation.ts), with each one's baseline and standing. Sums the
 * whole window (each function's share needs all its versions) and the whole baseline: two store
 * queries a round, each read in pages by the store.
 */
export async function readRoundEvidence(
  sources: EvidenceSources,
  tenantId: string,
  window: DetectionWindow,
  pick: { after: RollupVersionKey | null; limit: number },
  turn: TakeTurn,
): Promise<RoundEvidence> {
  const [recent, past] = await Promise.all([
    sources.rollups.totals(tenantId, { from: window.start, to: window.end }),
    sources.rollups.totals(tenantId, baselinePeriod(window)),
  ]);
  let buckets = 0;
  const functionCounts = new Map<string, number>();
  for (const [i, totals] of recent.entries()) {
    buckets += totals.buckets;
    functionCounts.set(functionKey(totals), (functionCounts.get(functionKey(totals)) ?? 0) + totals.count);
    if (i % TURN_EVERY === 0) await turn();
  }
  const picked = await pickInRotation(recent, pick.after, pick.limit, turn);
  const wanted = new Set(picked.map(versionKey));
  const baseline = new Map<string, RollupTotals>();
  for (const [i, totals] of past.entries()) {
    buckets += totals.buckets;
    if (wanted.has(versionKey(totals))) baseline.set(versionKey(totals), totals);
    if (i % TURN_EVERY === 0) await turn();
  }
  const standingOf = standingReader(sources, tenantId);
  const evidence: VersionEvidence[] = [];
  for (const totals of picked) {
    const { policyModule, policyFunction, version } = totals;
    evidence.push({
      policyModule,
      policyFunction,
      version,
      window: totals,
      baseline: baseline.get(versionKey(totals)) ?? null,
      functionWindowCount: functionCounts.get(functionKey(totals)) ?? 0,
      standing: await standingOf(totals),
    });
    await turn();
  }
  return { evidence, versions: recent.length, buckets };
}

/** The evidence of one version, evaluated in the window or not: reads only its function's window. */
export async function readVersionEvidence(sources: EvidenceSources, tenantId: string, window: DetectionWindow, ref: RollupVersionKey): Promise<VersionEvidence> {
  const { policyModule, policyFunction, version } = ref;
  const versions = await sources.rollups.totals(tenantId, { from: window.start, to: window.end, policyModule, policyFunction });
  return {
    policyModule,
    policyFunction,
    version,
    window: versions.find((totals) => totals.version === version) ?? null,
    baseline: await versionBaseline(sources, tenantId, window, ref),
    functionWindowCount: versions.reduce((sum, totals) => sum + totals.count, 0),
    standing: await standingReader(sources, tenantId)(ref),
  };
}
