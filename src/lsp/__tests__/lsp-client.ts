/**
 * A real LSP client for the tests: starts `policy lsp --stdio` as a process (scripts/policy.mjs,
 * which runs the built dist/) and speaks JSON-RPC to it over its standard input and output.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol';

const POLICY = fileURLToPath(new URL('../../../scripts/policy.mjs', import.meta.url));

export interface LspClient {
  readonly connection: MessageConnection;
  /** Opens a document (version 1) and waits for its first diagnostics. */
  open(uri: string, text: string): Promise<PublishDiagnosticsParams>;
  /** Replaces a document's text and waits for the diagnostics of that version. */
  change(uri: string, version: number, text: string): Promise<PublishDiagnosticsParams>;
  request<R>(method: string, params: unknown): Promise<R>;
  /** `shutdown`, `exit`, and the process's exit code. */
  stop(): Promise<number | null>;
}

export async function startLspClient(): Promise<LspClient> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [POLICY, 'lsp', '--stdio'], { stdio: 'pipe' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const waiting = new Map<string, { version: number; resolve: (params: PublishDiagnosticsParams) => void }[]>();
  connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
    const list = waiting.get(params.uri) ?? [];
    const ready = list.filter((w) => params.version === undefined || params.version >= w.version);
    waiting.set(params.uri, list.filter((w) => !ready.includes(w)));
    for (const w of ready) w.resolve(params);
  });
  connection.listen();
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  await connection.sendNotification('initialized', {});

  const diagnosticsOf = (uri: string, version: number) =>
    new Promise<PublishDiagnosticsParams>((resolve) => waiting.set(uri, [...(waiting.get(uri) ?? []), { version, resolve }]));

  return {
    connection,
    async open(uri, text) {
      const diagnostics = diagnosticsOf(uri, 1);
      await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'policy', version: 1, text } });
      return diagnostics;
    },
    async change(uri, version, text) {
      const diagnostics = diagnosticsOf(uri, version);
      await connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
      return diagnostics;
    },
    request: (method, params) => connection.sendRequest(method, params),
    async stop() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
}
