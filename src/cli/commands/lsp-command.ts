import { runLanguageServer } from '../../lsp/index.js';
import { EXIT_OK } from '../cli-io.js';

/**
 * `policy lsp`: the language server on standard input and output until the client ends it. The
 * LSP library exits the process on `exit` (0 after `shutdown`, 1 without), as the protocol asks.
 */
export async function runLsp(): Promise<number> {
  await runLanguageServer(process.stdin, process.stdout);
  return EXIT_OK;
}
