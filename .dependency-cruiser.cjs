// Layer rules for src/ (plan/architecture.md "Allowed directions"; decision 0028).
// `npm run lint:deps` runs this in CI after the typecheck.
//
// Temporary exceptions while the decoupling is in progress (ISSUE 12 item 1). The goal is to
// shrink both lists to zero; never add to them.
//  - coreExceptions: one exact `from -> to` pair each, with the reason it still exists.
//  - known cycles: .dependency-cruiser-known-violations.json (dependency-cruiser's baseline,
//    matched per cycle, not by wildcard). Regenerate ONLY after removing a cycle:
//    `npm run lint:deps:baseline`.

/** Core files that still import a higher layer: [from, to, why]. */
const coreExceptions = [
  // secrets: the per-run masker is applied where events, logs, state and errors enter the tree.
  ['src/core/workflow.ts', 'src/secrets/run-secrets.ts', 'per-run masking at emit/log/state'],
  ['src/core/workflow.ts', 'src/secrets/redacted-values.ts', 'run secrets from workflow config'],
  ['src/core/run-workflow.ts', 'src/secrets/run-secrets.ts', 'run secrets registered at run start'],
  ['src/core/run-workflow.ts', 'src/secrets/redacted-values.ts', 'run secrets from workflow config'],
  ['src/core/failure.ts', 'src/secrets/run-secrets.ts', 'errors masked before they enter the tree'],
  // validation: zod schemas for core's own public options.
  ['src/core/workflow.ts', 'src/validation/workflow-config.schema.ts', 'WorkflowConfig check'],
  ['src/core/workflow-context.ts', 'src/validation/step-options.schema.ts', 'ctx.step options check'],
  ['src/core/run-step.ts', 'src/validation/step-options.schema.ts', 'backoff check'],
  ['src/core/context-fan-out.ts', 'src/validation/fan-out-options.schema.ts', 'fan-out options check'],
  // agent / prompt / reflection concepts still on core.
  ['src/core/workflow.ts', 'src/reflection/step-reflection.ts', 'WorkflowConfig.reflection type'],
];

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
    {
      name: 'util-types-imports-nothing-above',
      severity: 'error',
      comment: 'util/ and types/ are the bottom: they import only util/ and types/.',
      from: { path: '^src/(util|types)/' },
      to: { path: '^src/', pathNot: '^src/(util|types)/' },
    },
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
