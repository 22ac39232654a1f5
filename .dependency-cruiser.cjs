// Ranked layers for src/ (plan/architecture.md "Layers"; decision 0049). `npm run lint:deps` runs
// this in CI after the typecheck.
//
// One rule: a unit imports only itself and the units ranked before it. So no import goes into a
// later layer, and the folder graph has no loop. A unit is a folder of src/ (or a sub-folder,
// where it has its own rank); every folder must be ranked. Type-only imports count.
const { readdirSync } = require('node:fs');

/** Bottom to top. Order matters inside a layer too: a unit never imports one listed after it. */
const ranks = [
  ['foundation', ['types', 'util', 'errors', 'checks', 'budgets']],
  ['core', ['core', 'decorators', 'debugger', 'secrets']],
  ['building blocks', ['cache', 'plan-files', 'ancestry', 'tools', 'file-tools', 'mcp']],
  ['agent', ['agent']],
  ['features', ['trajectory', 'reflection', 'plans', 'introspection']],
  ['durable runs', ['durable/store', 'durable/memory', 'durable/journal', 'durable/postgres', 'durable/runtime', 'durable/dbos', 'durable/replay', 'durable']],
  ['outputs and tools', ['otel', 'progress', 'viewer', 'web', 'web/client', 'redis', 'testing', 'cli']],
];

/**
 * The composition root plugs features into their hosts; the package's entries call it. It and
 * the root entry sit above every layer.
 */
const compositionRoot = 'src/install.ts';
const entriesCallingRoot = ['src/plans/index.ts', 'src/durable/dbos/index.ts'];

const units = ranks.flatMap(([, list]) => list);
const unranked = readdirSync('src', { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !units.includes(entry.name))
  .map((entry) => entry.name);
if (unranked.length > 0) throw new Error(`.dependency-cruiser.cjs: rank these folders of src/: ${unranked.join(', ')}`);

const esc = (p) => p.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/** The files of a unit: its folder minus its ranked sub-folders. */
const unitPath = (unit) => ({
  path: `^src/${esc(unit)}/`,
  pathNot: units.filter((other) => other.startsWith(`${unit}/`)).map((other) => `^src/${esc(other)}/`),
});

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
    ...units.map((unit, at) => {
      const allowed = [unit, ...units.slice(0, at)];
      const from = unitPath(unit);
      const exempt = entriesCallingRoot.filter((f) => f.startsWith(`src/${unit}/`)).map((f) => `^${esc(f)}$`);
      return {
        name: `rank-${unit.replace('/', '-')}`,
        severity: 'error',
        comment: `${unit}/ may import only itself and the units ranked before it: ${allowed.slice(1).join(', ') || '(nothing)'}.`,
        from: { path: from.path, pathNot: [...from.pathNot, ...exempt] },
        to: { path: '^src/', pathNot: allowed.map((u) => `^src/${esc(u)}/`) },
      };
    }),
    // Those entries: the rule of their unit, plus the composition root.
    ...entriesCallingRoot.map((file) => {
      const unit = units.filter((u) => file.startsWith(`src/${u}/`)).sort((a, b) => b.length - a.length)[0];
      const allowed = units.slice(0, units.indexOf(unit) + 1);
      return {
        name: `rank-entry-${unit.replace('/', '-')}`,
        severity: 'error',
        comment: `${file} may import what its unit may, and the composition root.`,
        from: { path: `^${esc(file)}$` },
        to: { path: '^src/', pathNot: [`^${esc(compositionRoot)}$`, ...allowed.map((u) => `^src/${esc(u)}/`)] },
      };
    }),
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
