import { createHash } from 'node:crypto';

/**
 * The third-party browser code the console loads, each file served from its npm package under
 * /console/vendor/. The editor's packages are ES modules that import each other by bare name
 * (`@codemirror/state`): the import map below tells the browser which served file each name is.
 */
interface VendorFile {
  /** The name under /console/vendor/. */
  file: string;
  /** The file inside node_modules. */
  path: string;
  /** The bare name other modules import it by; absent for files loaded by URL (styles, uPlot). */
  specifier?: string;
}

const VENDOR: readonly VendorFile[] = [
  { file: 'uPlot.esm.js', path: 'uplot/dist/uPlot.esm.js' },
  { file: 'uPlot.min.css', path: 'uplot/dist/uPlot.min.css' },
  { file: 'codemirror-state.js', path: '@codemirror/state/dist/index.js', specifier: '@codemirror/state' },
  { file: 'codemirror-view.js', path: '@codemirror/view/dist/index.js', specifier: '@codemirror/view' },
  { file: 'codemirror-language.js', path: '@codemirror/language/dist/index.js', specifier: '@codemirror/language' },
  { file: 'codemirror-streamparser.js', path: '@codemirror/streamparser/dist/index.js', specifier: '@codemirror/streamparser' },
  { file: 'codemirror-lint.js', path: '@codemirror/lint/dist/index.js', specifier: '@codemirror/lint' },
  { file: 'codemirror-commands.js', path: '@codemirror/commands/dist/index.js', specifier: '@codemirror/commands' },
  { file: 'lezer-common.js', path: '@lezer/common/dist/index.js', specifier: '@lezer/common' },
  { file: 'lezer-highlight.js', path: '@lezer/highlight/dist/index.js', specifier: '@lezer/highlight' },
  { file: 'lezer-lr.js', path: '@lezer/lr/dist/index.js', specifier: '@lezer/lr' },
  { file: 'style-mod.js', path: 'style-mod/src/style-mod.js', specifier: 'style-mod' },
  { file: 'w3c-keyname.js', path: 'w3c-keyname/index.js', specifier: 'w3c-keyname' },
  { file: 'crelt.js', path: 'crelt/index.js', specifier: 'crelt' },
  { file: 'find-cluster-break.js', path: '@marijn/find-cluster-break/src/index.js', specifier: '@marijn/find-cluster-break' },
];

/** The vendor files by their name under /console/vendor/: only these ever reach the file system. */
export const VENDOR_FILES: ReadonlyMap<string, string> = new Map(VENDOR.map(({ file, path }) => [file, path]));

/** The page's `<script type="importmap">`, exactly as served: its hash below must match it byte for byte. */
export const IMPORT_MAP_SCRIPT = `<script type="importmap">${JSON.stringify({
  imports: Object.fromEntries(VENDOR.flatMap(({ file, specifier }) => (specifier === undefined ? [] : [[specifier, `/console/vendor/${file}`]]))),
})}</script>`;

/**
 * The import map is the page's only inline script (browsers take no import map from a file), so
 * the Content-Security-Policy names its hash instead of allowing inline scripts.
 */
export const IMPORT_MAP_HASH = `'sha256-${createHash('sha256')
  .update(IMPORT_MAP_SCRIPT.slice('<script type="importmap">'.length, -'</script>'.length))
  .digest('base64')}'`;
