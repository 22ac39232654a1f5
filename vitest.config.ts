import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { alias, decoratorTransform } from './vitest.shared.js';

export default defineConfig({
  plugins: [decoratorTransform(false)],
  oxc: false,
  resolve: { alias },
  test: {
    reporters: ['default', './tests/support/summary-reporter.ts'],
    // Test files share a worker's module cache instead of re-importing the library for every
    // file: that import was most of the suite's time (decision 0025). Tests own their state.
    isolate: false,
    // At least two workers even on two cores: the slowest files (the pack test, the README
    // snippets, stdio MCP) mostly wait on child processes, and the rest can run meanwhile.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    include: ['tests/**/*.test.ts'],
    setupFiles: ['./tests/support/model-path-setup.ts'],
    env: { GROUNDSWELL_DECORATOR_MODE: 'tc39' },
    typecheck: { enabled: true, include: ['tests/**/*.test-d.ts'], tsconfig: './tsconfig.typecheck.json' },
  },
});
