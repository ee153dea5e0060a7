// Piscina thread entry of `policy lsp`, loaded by path from dist/workers/lsp-analysis-thread.js (see src/lsp/analyser.ts).
import { runAnalysisTask } from '../src/lsp/analysis-task.js';

export default runAnalysisTask;
