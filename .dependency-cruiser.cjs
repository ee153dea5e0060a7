/**
 * The import graph of src/, workers/ and scripts/ (`npm run lint:deps`, run by CI before the tests).
 *
 * LAYERS lists the folders of src/ from the bottom up. A folder imports its own files and the
 * folders of lower layers, never a higher layer nor another folder of its own layer. Type-only
 * imports count (tsPreCompilationDeps), so a circle cannot hide behind `import type`.
 */

/** Bottom → top. Each entry is one layer: a folder, or folders that do not import each other. */
const LAYERS = [
  ['kernel'], // names and text rules every part shares
  ['errors', 'logging'],
  ['language'], // the policy language
  ['engine'], // the batch type and the thread pool that runs it
  ['lsp'], // the language server: the language, under the engine's bounds
  ['jobs'], // queue names, Redis connections, the policy-evaluate wire format: no domain
  // The domains, each above the ones it uses; each declares the repositories it needs (its ports).
  ['tenants', 'idempotency', 'rollups'],
  ['auth'],
  ['audit'],
  ['evaluation'], // owns the dispatcher port and the resolver port that policies implements
  ['policies'],
  ['workflows'],
  ['anomalies'],
  ['webhooks'], // pushes what the domains below record to the tenants' receivers
  ['store'], // the SQLite and MongoDB adapters of the domains' ports
  ['metrics'], // wraps domain parts to count what they do
  ['api'], // the HTTP edge
  ['graphql'], // served through the API's route kit
  ['config'], // the environment schema, built from the bounds each part declares
  ['service'], // the service composed by part
  ['main.ts', 'cli', 'scripts', 'workers'], // entry points
];

/** The path of a layer member: a folder of src/, src/main.ts, or a top folder (scripts/, workers/). */
const memberPath = (name) => (name === 'scripts' || name === 'workers' ? `^${name}/` : name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`);

const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((member) => {
    const allowed = [member, ...LAYERS.slice(0, index).flat()];
    return {
      name: `layer-${member.replace('.ts', '')}`,
      comment: `${member} imports only ${index === 0 ? 'itself' : `itself and the layers below it (${LAYERS.slice(0, index).flat().join(', ')})`}`,
      severity: 'error',
      from: { path: memberPath(member) },
      to: { path: '^(src|scripts|workers)/', pathNot: allowed.map(memberPath) },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'Every module is imported or is an entry point.',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: ['\\.d\\.ts$', '(^|/)__tests__/'],
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or a package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-undeclared-packages',
      comment: 'Code that ships imports only packages of package.json (dependencies for src/, workers/ and scripts/).',
      severity: 'error',
      from: { path: '^(src|workers|scripts)/', pathNot: '(^|/)__tests__/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'npm-dev'] },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)__tests__/', '^dist/'] },
    // Type-only imports are edges too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
