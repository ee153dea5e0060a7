/**
 * The open documents and their analyses. An open is analysed at once, a change after
 * ANALYSIS_DEBOUNCE_MS of quiet; a request for a document waits for the analysis of its current
 * text (starting it at once when a change is still waiting for its quiet time).
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import { sourceLocale } from '../language/index.js';
import type { Analysis } from './analysis.js';
import { ANALYSIS_DEBOUNCE_MS } from './analysis-bounds.js';
import type { Analyser } from './analyser.js';

/** An analysis with the text it was made from. */
export interface AnalysedDocument {
  readonly document: TextDocument;
  readonly analysis: Analysis;
  /** The latest analysis of this document whose module checked (this one when it did), for types while the text is broken. */
  readonly typed: Analysis | null;
}

/** The text as it is now: the library's document object changes in place with every edit. */
function snapshot(document: TextDocument): TextDocument {
  return TextDocument.create(document.uri, document.languageId, document.version, document.getText());
}

interface DocumentState {
  text: TextDocument;
  timer: NodeJS.Timeout | null;
  running: { version: number; result: Promise<AnalysedDocument | undefined> } | null;
  done: AnalysedDocument | null;
  typed: Analysis | null;
}

export class DocumentStore {
  private readonly states = new Map<string, DocumentState>();

  constructor(
    private readonly analyser: Analyser,
    /** Called with each analysis of a document's current text (for its diagnostics). */
    private readonly onAnalysed: (analysed: AnalysedDocument) => void,
    /** Called when the analysis thread fails (not for bad source: that is diagnostics). */
    private readonly onFailed: (error: unknown) => void,
    private readonly debounceMs: number = ANALYSIS_DEBOUNCE_MS,
  ) {}

  /** A document was opened: analysed at once. */
  open(document: TextDocument): void {
    const previous = this.states.get(document.uri);
    if (previous?.timer) clearTimeout(previous.timer);
    this.states.set(document.uri, { text: snapshot(document), timer: null, running: null, done: null, typed: null });
    this.startInBackground(document.uri);
  }

  /** A document's text changed: analysed once the typing pauses. */
  change(document: TextDocument): void {
    const state = this.states.get(document.uri);
    // An open is also reported as a change of content: that text is being analysed already.
    if (state === undefined || state.text.version === document.version) return;
    state.text = snapshot(document);
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => this.startInBackground(document.uri), this.debounceMs);
  }

  close(uri: string): void {
    const state = this.states.get(uri);
    if (state?.timer) clearTimeout(state.timer);
    this.states.delete(uri);
  }

  /** The document's current text, or undefined when it is not open. */
  text(uri: string): TextDocument | undefined {
    return this.states.get(uri)?.text;
  }

  /** The analysis of the document's current text; undefined when it is not open. */
  async analysed(uri: string): Promise<AnalysedDocument | undefined> {
    const state = this.states.get(uri);
    if (state === undefined) return undefined;
    if (state.done?.document.version === state.text.version) return state.done;
    if (state.running?.version === state.text.version) return state.running.result;
    return this.start(uri);
  }

  private startInBackground(uri: string): void {
    this.start(uri).catch(this.onFailed);
  }

  private start(uri: string): Promise<AnalysedDocument | undefined> {
    const state = this.states.get(uri)!;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const document = state.text;
    const current = (): boolean => this.states.get(uri) === state && state.text.version === document.version;
    // A text replaced or closed while its analysis waited for the thread is not analysed: its requests get the newer text's.
    const result = this.analyser.analyse(document.getText(), sourceLocale(document.getText()), current).then((analysis) => {
      if (analysis === null) return this.analysed(uri);
      if (analysis.types !== null) state.typed = analysis;
      const analysed: AnalysedDocument = { document, analysis, typed: state.typed };
      if (state.done === null || state.done.document.version <= document.version) state.done = analysed;
      if (current()) this.onAnalysed(analysed);
      return analysed;
    });
    state.running = { version: document.version, result };
    return result;
  }
}
