/**
 * The language server: LSP over a pair of streams (standard input and output for `policy lsp`).
 * Analyses run in their own thread under a time limit (analyser.ts); every request answers from
 * the analysis of the document's current text.
 */
import type { Readable, Writable } from 'node:stream';
import {
  createConnection,
  ErrorCodes,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createAnalyser } from './analyser.js';
import { SHOW_IN_LOCALE_COMMAND, showInLocale, showInLocaleActions } from './code-actions.js';
import { completion } from './completion.js';
import { definition } from './definition.js';
import { DocumentStore, type AnalysedDocument } from './document-store.js';
import { formatDocument } from './formatting.js';
import { hover } from './hover.js';
import { toLspDiagnostic } from './lsp-diagnostics.js';
import { documentSymbols } from './symbols.js';

/** Serves one client until it sends `exit` or closes the input; resolves then. */
export function runLanguageServer(input: Readable, output: Writable): Promise<void> {
  const connection: Connection = createConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  const analyser = createAnalyser();
  const publish = ({ document, analysis }: AnalysedDocument): void =>
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: analysis.diagnostics.map((d) => toLspDiagnostic(d, document)) });
  const store = new DocumentStore(analyser, publish, (error) => connection.console.error(`analysis failed: ${error instanceof Error ? error.message : String(error)}`));
  const documents = new TextDocuments(TextDocument);

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['.'] },
      definitionProvider: true,
      documentSymbolProvider: true,
      documentFormattingProvider: true,
      codeActionProvider: true,
      executeCommandProvider: { commands: [SHOW_IN_LOCALE_COMMAND] },
    },
    serverInfo: { name: 'policy-lsp' },
  }));

  documents.onDidOpen(({ document }) => store.open(document));
  documents.onDidChangeContent(({ document }) => store.change(document));
  documents.onDidClose(({ document }) => {
    store.close(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  const at = async <T>(uri: string, answer: (analysed: AnalysedDocument) => T, none: T): Promise<T> => {
    const analysed = await store.analysed(uri);
    return analysed === undefined ? none : answer(analysed);
  };
  connection.onHover(({ textDocument, position }) => at(textDocument.uri, (a) => hover(a, a.document.offsetAt(position)), null));
  connection.onCompletion(({ textDocument, position }) => at(textDocument.uri, (a) => completion(a, a.document.offsetAt(position)), []));
  connection.onDefinition(({ textDocument, position }) => at(textDocument.uri, (a) => definition(a, a.document.offsetAt(position)), null));
  connection.onDocumentSymbol(({ textDocument }) => at(textDocument.uri, documentSymbols, []));
  connection.onDocumentFormatting(({ textDocument }) => {
    const document = store.text(textDocument.uri);
    return document === undefined ? [] : formatDocument(analyser, document);
  });
  connection.onCodeAction(({ textDocument }) => {
    const document = store.text(textDocument.uri);
    return document === undefined ? [] : showInLocaleActions(document.uri, document.getText());
  });
  connection.onExecuteCommand(({ command, arguments: args }) =>
    command === SHOW_IN_LOCALE_COMMAND ? showInLocale(analyser, store, args ?? []) : new ResponseError(ErrorCodes.InvalidParams, `unknown command \`${command}\``),
  );

  documents.listen(connection);
  const closed = new Promise<void>((resolve) => connection.onExit(resolve));
  connection.listen();
  return closed.finally(() => analyser.close());
}
