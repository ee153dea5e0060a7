/**
 * The server against the whole conformance corpus, and against documents too large or too slow to
 * compile: every case opens without stopping the server, with exactly the diagnostics `compile`
 * reports for it (read in the locale `policy check` reads it in), and a pathological document
 * never keeps the server from answering the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic as LspDiagnostic, Hover } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { compile, sourceLocale } from '../../language/index.js';
import { loadCaseFiles } from '../../../test/conformance/case-file.js';
import { startLspClient, type LspClient } from './lsp-client.js';

/** What the server should publish for a source: the compiler's diagnostics, help after the message. */
function expectedDiagnostics(text: string): Partial<LspDiagnostic>[] {
  const document = TextDocument.create('x', 'policy', 1, text);
  return compile(text, sourceLocale(text)).diagnostics.map((d) => ({
    code: d.code,
    severity: d.severity === 'error' ? 1 : 2,
    message: d.help === undefined ? d.message : `${d.message}\nhelp: ${d.help}`,
    range: d.span
      ? { start: document.positionAt(d.span.start), end: document.positionAt(d.span.end) }
      : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
  }));
}

let client: LspClient;

beforeAll(async () => {
  client = await startLspClient();
});

afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

describe.each(loadCaseFiles())('conformance cases of $file', ({ file, cases }) => {
  it(`open with the compiler's diagnostics (${cases.length} cases)`, async () => {
    for (const [index, c] of cases.entries()) {
      const uri = `file:///corpus/${file}/${index}.policy`;
      const published = await client.open(uri, c.text);
      expect(published.diagnostics.map(({ code, severity, message, range }) => ({ code, severity, message, range })), c.name).toEqual(
        expectedDiagnostics(c.text),
      );
      await client.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    }
  });
});

describe('documents the compiler refuses or takes long over', () => {
  const small = 'Module small.\n\nRule answer produce Int:\n  Return 42.\n';
  const hoverAnswer = () =>
    client.request<Hover | null>('textDocument/hover', { textDocument: { uri: 'file:///bounds/small.policy' }, position: { line: 2, character: 6 } });

  it('answers an over-size document with PL4001 and goes on answering', async () => {
    const huge = `Module big.\n# ${'x'.repeat(4 * 1024 * 1024)}\n`;
    const published = await client.open('file:///bounds/huge.policy', huge);
    expect(published.diagnostics.map((d) => d.code)).toEqual(['PL4001']);
    await client.open('file:///bounds/small.policy', small);
    expect((await hoverAnswer())?.contents).toMatchObject({ value: expect.stringContaining('Rule answer produce Int') });
  });

  it('answers the next request after a document whose checking runs long', async () => {
    // Twenty thousand empty lists in one list: checking them costs seconds, past the analysis time limit.
    const slow = `Module slow.\nRule r produce List of Int:\n  Return [${Array.from({ length: 21_000 }, () => '[]').join(',')}].\n`;
    const published = await client.open('file:///bounds/slow.policy', slow);
    // The time limit (PL4004) ends it unless this machine checks it within the limit; then it is the compiler's answer.
    const codes = published.diagnostics.map((d) => d.code);
    if (codes.includes('PL4004')) expect(codes).toEqual(['PL4004']);
    else expect(published.diagnostics.map(({ code, message }) => ({ code, message }))).toEqual(expectedDiagnostics(slow).map(({ code, message }) => ({ code, message })));
    const edited = `${small}# edited\n`;
    await client.change('file:///bounds/small.policy', 2, edited);
    expect((await hoverAnswer())?.contents).toMatchObject({ value: expect.stringContaining('Rule answer produce Int') });
  });
});
