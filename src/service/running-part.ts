import type { Runtime } from './runtime.js';

/** One started piece of a process (the API, a queue consumer, the metrics server). */
export interface RunningPart {
  name: string;
  /** Where clients reach it, for the start-up line (the API's base URL). */
  url?: string;
  stop(): Promise<void>;
}

export type PartStarter = (runtime: Runtime) => Promise<RunningPart>;
