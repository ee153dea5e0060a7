'use strict';
// Starts the policy language server (`policy lsp --stdio` by default) for *.policy files and restarts
// it when its command setting changes. Highlighting needs no code: it is the grammar in syntaxes/.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function createClient() {
  const settings = vscode.workspace.getConfiguration('policy.server');
  const folder = vscode.workspace.workspaceFolders?.[0];
  // No `transport`: the server talks over stdio, and the client adds no `--stdio` of its own (the args carry it).
  const server = {
    command: settings.get('command'),
    args: settings.get('args'),
    // `npx` is a batch file on Windows.
    options: { cwd: folder?.uri.fsPath, shell: process.platform === 'win32' },
  };
  return new LanguageClient('policy', 'Policy language server', { run: server, debug: server }, {
    documentSelector: [{ language: 'policy' }],
    middleware: { executeCommand: showModuleInLocale },
  });
}

// The server's "Show this module in …" action returns the module printed in another locale and opens
// nothing itself: the client shows the text beside the document, unsaved.
async function showModuleInLocale(command, args, next) {
  const result = await next(command, args);
  if (command === 'policy.showModuleInLocale' && typeof result?.text === 'string') {
    const document = await vscode.workspace.openTextDocument({ language: 'policy', content: result.text });
    await vscode.window.showTextDocument(document, vscode.ViewColumn.Beside);
  }
  return result;
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('policy.server')) return;
      await client?.stop();
      client = createClient();
      await client.start();
    }),
  );
  await client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
