// The playground's source editor: CodeMirror 6, served by the service under /console/vendor/ and
// found through the page's import map. It colours with the tokenizer of the source views
// (policy-highlight.js, the service's keyword tables) in the module's locale, and shows the
// diagnostics of POST /api/v1/policies/check as the text changes (after a pause in typing).
// Tab is not bound: Tab and Shift+Tab move the focus on, as everywhere else on the page, and
// Ctrl+] / Ctrl+[ (Cmd on a Mac) indent and dedent the lines.
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { indentUnit, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { linter, lintGutter } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, keymap, lineNumbers } from '@codemirror/view';
import { tagHighlighter, tags } from '@lezer/highlight';
import { lineTokens } from './policy-highlight.js';
import { styleNonce } from './style-nonce.js';

/** Quiet time after the last keystroke before the source is checked. */
const CHECK_DELAY_MS = 400;

/** The highlighter's token kinds as the editor's style tags; names and punctuation stay plain. */
const STYLE_OF_KIND = { keyword: 'keyword', text: 'string', number: 'number', comment: 'comment' };

/** The same classes as the source views, so the colours (and their contrast) are stated once in console.css. */
const classes = tagHighlighter([
  { tag: tags.keyword, class: 'tok-keyword' },
  { tag: tags.string, class: 'tok-text' },
  { tag: tags.number, class: 'tok-number' },
  { tag: tags.comment, class: 'tok-comment' },
]);

/** A stream language that reads each line with the source views' tokenizer in `locale`. */
function policyLanguage(locale) {
  return StreamLanguage.define({
    name: 'policy',
    startState: () => ({ tokens: [], next: 0 }),
    copyState: (state) => ({ tokens: state.tokens, next: state.next }),
    token(stream, state) {
      if (stream.sol()) {
        state.tokens = lineTokens(stream.string, locale);
        state.next = 0;
      }
      const token = state.tokens[state.next++];
      if (!token) {
        stream.skipToEnd();
        return null;
      }
      stream.pos += token.text.length;
      return STYLE_OF_KIND[token.kind] ?? null;
    },
  });
}

/** A check's diagnostic where the editor marks it; one with no place in the source marks the start. */
function editorDiagnostic(diagnostic, length) {
  const clamp = (offset) => Math.min(Math.max(offset ?? 0, 0), length);
  const from = clamp(diagnostic.span?.start.offset);
  return {
    from,
    to: Math.max(from, clamp(diagnostic.span?.end.offset)),
    severity: diagnostic.severity === 'error' ? 'error' : 'warning',
    source: diagnostic.code,
    message: diagnostic.help ? `${diagnostic.message} ${diagnostic.help}` : diagnostic.message,
  };
}

const look = EditorView.theme({
  '&': { border: '1px solid #767676', borderRadius: '4px', background: '#fff', fontSize: '0.9rem' },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "Noto Sans Mono CJK SC", monospace', minHeight: '18rem', maxHeight: '32rem' },
  '.cm-gutters': { background: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
});

/**
 * `check(source)` answers the check of a source (or null when the service did not): its
 * diagnostics become the editor's marks. `labelledBy`/`describedBy` name the editor's text box.
 */
export function policyEditor({ doc, locale, labelledBy, describedBy, check }) {
  const language = new Compartment();
  const view = new EditorView({
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        indentUnit.of('  '),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        language.of(policyLanguage(locale)),
        syntaxHighlighting(classes),
        lintGutter(),
        linter(
          async (current) => {
            const report = await check(current.state.doc.toString());
            return (report?.diagnostics ?? []).map((diagnostic) => editorDiagnostic(diagnostic, current.state.doc.length));
          },
          { delay: CHECK_DELAY_MS },
        ),
        EditorView.lineWrapping,
        // The editor's styles go into a <style> element, which the page's policy allows only with its nonce.
        EditorView.cspNonce.of(styleNonce()),
        EditorView.contentAttributes.of({ 'aria-labelledby': labelledBy, 'aria-describedby': describedBy, 'aria-multiline': 'true', spellcheck: 'false' }),
        look,
      ],
    }),
  });
  return {
    element: view.dom,
    text: () => view.state.doc.toString(),
    /** Replaces the whole text (one step to undo). */
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    /** Colours with another locale's keywords. */
    setLocale: (tag) => view.dispatch({ effects: language.reconfigure(policyLanguage(tag)) }),
    focus: () => view.focus(),
    /** Stops the editor (and a check still waiting for its pause). */
    destroy: () => view.destroy(),
  };
}
