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
