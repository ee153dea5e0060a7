/**
 * Runs analyses and formatting in one thread, one task at a time, each within ANALYSIS_TIMEOUT_MS:
 * a task that runs over has its thread replaced and answers PL4004, so no document, however
 * pathological, keeps the server from answering.
 */
import { Piscina } from 'piscina';
import { resolveThreadFile } from '../engine/index.js';
import { checkSourceSize } from '../language/lexer/index.js';
import { EvaluationTimedOut, placeDiagnostic } from '../language/diagnostics/index.js';
import type { Diagnostic, Locale } from '../language/index.js';
import type { Analysis, FormatOutcome } from './analysis.js';
import { ANALYSIS_TIMEOUT_MS } from './analysis-bounds.js';
import type { AnalysisTask } from './analysis-task.js';

export interface Analyser {
  /** Null when `wanted` says, as the task's turn comes, that nobody needs it any more. */
  analyse(text: string, locale: Locale, wanted: () => boolean): Promise<Analysis | null>;
  format(text: string, locale: Locale, target: Locale): Promise<FormatOutcome>;
  close(): Promise<void>;
}

const TIMED_OUT = Symbol('timed out');

export function createAnalyser(): Analyser {
  const timeoutMs = ANALYSIS_TIMEOUT_MS;
  const pool = new Piscina({
    filename: resolveThreadFile('lsp-analysis-thread'),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Number.MAX_SAFE_INTEGER,
  });
  let queue: Promise<unknown> = Promise.resolve();

  /** One task at a time, so each task's time limit counts from its own start, not from its wait. */
  function enqueue<R>(job: () => Promise<R>): Promise<R> {
    const next = queue.then(job);
    queue = next.catch(() => undefined);
    return next;
  }

  async function runWithinLimit<T>(task: AnalysisTask): Promise<T | typeof TIMED_OUT> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return (await pool.run(task, { signal: controller.signal })) as T;
    } catch (error) {
      if (controller.signal.aborted) return TIMED_OUT;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  const timedOut = (): Diagnostic => placeDiagnostic(EvaluationTimedOut(timeoutMs), null);

  return {
    async analyse(text, locale, wanted) {
      // An over-size document is answered here, without copying it to the thread.
      const tooLarge = checkSourceSize(text);
      if (tooLarge) return { locale, diagnostics: [tooLarge], module: null, words: [], types: null };
      const analysis = await enqueue(() => (wanted() ? runWithinLimit<Analysis>({ kind: 'analyse', text, locale }) : Promise.resolve(null)));
      if (analysis === null) return null;
      return analysis === TIMED_OUT ? { locale, diagnostics: [timedOut()], module: null, words: [], types: null } : analysis;
    },
    async format(text, locale, target) {
      const tooLarge = checkSourceSize(text);
      if (tooLarge) return { ok: false, diagnostics: [tooLarge] };
      const outcome = await enqueue(() => runWithinLimit<FormatOutcome>({ kind: 'format', text, locale, target }));
      return outcome === TIMED_OUT ? { ok: false, diagnostics: [timedOut()] } : outcome;
    },
    close: () => pool.destroy(),
  };
}
