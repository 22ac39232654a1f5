import { defineConfig } from 'vitest/config';
import { alias, decoratorTransform } from './vitest.shared.js';

// The decorator suite again, compiled the way an `experimentalDecorators` project compiles it.
export default defineConfig({
  plugins: [decoratorTransform(true)],
  oxc: false,
  resolve: { alias },
  test: {
    reporters: ['default', './tests/support/summary-reporter.ts'],
    // Test files share a worker's module cache instead of re-importing the library for every
    // file: that import was most of the suite's time (decision 0025). Tests own their state.
    isolate: false,
    name: 'legacy-decorators',
    include: ['tests/decorators/**/*.test.ts'],
    env: { GROUNDSWELL_DECORATOR_MODE: 'legacy' },
  },
});
