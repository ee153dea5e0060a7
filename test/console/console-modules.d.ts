// The console ships as the JavaScript it is written in, with no types; these are the types of what
// the suites import from it.

declare module '*/console/audit-api.js' {
  export const AUDIT_EVENT_TYPES: readonly string[];
}

declare module '*/console/chart-window.js' {
  interface RollupWindow {
    startTime: string;
    endTime: string;
    step: 'minute' | 'hour' | 'day';
  }
  export function chartWindow(
    anomaly: { detectedAt?: string; metrics?: { windowStart?: string } },
    baselineDays: number,
    now?: Date,
  ): { window: RollupWindow; baseline: RollupWindow };
}

declare module '*/console/event-stream.js' {
  export function sseParser(handlers: { onEvent(data: string, id: string | null): void; onRetry(ms: number): void }): { push(text: string): void };
}

declare module '*/console/anomaly-action-plan.js' {
  interface PlannedAction {
    kind: 'link' | 'rollback' | 'canary' | 'verify';
    label: string;
    href?: string;
    version?: number;
  }
  export function anomalyActionPlan(
    anomaly: { type: string; policyModule: string; policyFunction: string; versionId: string; status: string },
    activeVersion: number | null,
  ): Array<{ text: string; actions: PlannedAction[] }>;
}

declare module '*/console/format.js' {
  export function formatTime(instant: string | number | Date | null | undefined): string;
  export function withReadableTimes(text: string): string;
  export function formatMetric(name: string, value: unknown): string;
}

declare module '*/console/metric-labels.js' {
  export function metricLabel(name: string): { label: string; unit: string };
}

declare module '*/console/utc-time-input.js' {
  export function parseUtcInput(text: string, options?: { endOfMinute?: boolean }): string | null;
  export function typedUtcRange(
    from: { value: string },
    to: { value: string },
    fromLabel: string,
    toLabel: string,
  ): { from: string; to: string; problem?: undefined } | { control: { value: string }; problem: string };
}

declare module '*/console/verification-words.js' {
  export function verificationFinding(verification: { outcome: string; reason: string }): string;
}
