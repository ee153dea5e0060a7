/** The policy language server (`policy lsp`). */
export { runLanguageServer } from './server.js';
