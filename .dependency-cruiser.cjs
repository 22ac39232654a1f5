// Layer rules for src/ (plan/architecture.md "Allowed directions"; decision 0028).
// `npm run lint:deps` runs this in CI after the typecheck.
//
// Temporary exceptions while the decoupling is in progress (ISSUE 12 item 1): coreExceptions,
// one exact `from -> to` pair each with the reason it still exists. The goal is zero; never add
// to it. There is no baseline of known cycles any more: any cycle fails (decision 0030).

/** Core files that still import a higher layer: [from, to, why]. None left (core's configs live in core/config). */
const coreExceptions = [];

/**
 * The layer graph above core, as it is today (minimal: only the directions in use). Shrinking it
 * is welcome; widening it needs a reason in plan/architecture.md. `core` has its own rule above.
 * The root entries (src/index.ts) may import anything.
 */
const layers = {
  types: ['util'],
  util: ['types'],
  errors: ['types', 'util'],
  cache: ['errors', 'types', 'util'],
  durable: ['errors', 'types', 'util'],
  // The PostgreSQL store implements durable's contract and throws its errors.
  postgres: ['durable', 'errors', 'types', 'util'],
  // The Redis cache store implements cache's contract and throws its CacheStoreError.
  redis: ['cache', 'errors', 'util'],
  // The terminal progress display reads events only (root entry); util for escaping names.
  progress: ['types', 'util'],
  plans: ['errors'],
  judge: ['errors', 'tools', 'util'],
  mcp: ['errors', 'util', 'validation'],
  testing: ['errors', 'goals', 'util'],
  validation: ['cache', 'errors', 'introspection', 'util'],
  secrets: ['core', 'util'],
  decorators: ['core', 'errors', 'util', 'validation'],
  debugger: ['core', 'errors', 'types', 'util', 'validation'],
  goals: ['core', 'plans', 'types', 'util'],
  tools: ['trajectory', 'types', 'validation'],
  trajectory: ['agent', 'cache', 'errors', 'types', 'util'],
  prompt: ['agent', 'errors', 'util', 'validation'],
  reflection: ['agent', 'core', 'errors', 'prompt', 'util'],
  agent: ['cache', 'core', 'errors', 'goal-plans', 'goals', 'mcp', 'prompt', 'reflection', 'secrets', 'tools', 'trajectory', 'types', 'util', 'validation'],
  introspection: ['agent', 'cache', 'core', 'errors', 'goals', 'prompt', 'tools', 'types', 'util', 'validation'],
  'goal-plans': ['agent', 'cache', 'core', 'judge', 'plans', 'prompt', 'tools', 'util', 'validation'],
  replay: ['agent', 'cache', 'core', 'debugger', 'durable', 'errors', 'trajectory', 'types', 'util'],
  cli: ['debugger', 'durable', 'errors', 'postgres', 'replay', 'types', 'util', 'viewer'],
  // The local web viewer (decision 0036): serves the debugger's view of a live or loaded tree.
  viewer: ['debugger', 'errors', 'types', 'util'],
  // The OpenTelemetry observer reads events and nodes only (types) and throws groundswell errors.
  otel: ['errors', 'types', 'util'],
  // Runs on DBOS Transact: journals steps and calls (core/agent extension points), grafts children's trees.
  dbos: ['agent', 'core', 'errors', 'types', 'util'],
};

const esc = (p) => '^' + p.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&') + '$';
const coreAllowed = '^src/(core|util|types|errors)/';
const exceptedFrom = [...new Set(coreExceptions.map(([from]) => from))];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere in src (type-only imports count).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-only-util-types-errors',
      severity: 'error',
      comment: 'core/ may import only util/, types/, errors/ and itself.',
      from: { path: '^src/core/', pathNot: exceptedFrom.map(esc) },
      to: { path: '^src/', pathNot: coreAllowed },
    },
    // The same rule for each core file with a listed exception: everything but its exact pairs.
    ...exceptedFrom.map((from) => ({
      name: 'core-imports-only-util-types-errors',
      severity: 'error',
      comment: 'core/ may import only util/, types/, errors/ and itself (listed exceptions aside).',
      from: { path: esc(from) },
      to: {
        path: '^src/',
        pathNot: [coreAllowed, ...coreExceptions.filter(([f]) => f === from).map(([, to]) => esc(to))],
      },
    })),
    // Every other folder: the folders it may import (besides itself), as the code is today.
    ...Object.entries(layers).map(([folder, allowed]) => ({
      name: `layer-${folder}`,
      severity: 'error',
      comment: `${folder}/ may import only: ${allowed.join(', ') || '(nothing)'} (plan/architecture.md).`,
      from: { path: `^src/${folder}/` },
      to: { path: '^src/', pathNot: `^src/(${[folder, ...allowed].join('|')})/` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
  },
};
