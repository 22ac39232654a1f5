import { defineConfig } from 'vitest/config';
import { alias, decoratorTransform } from './vitest.shared.js';

export default defineConfig({
  plugins: [decoratorTransform(false)],
  oxc: false,
  resolve: { alias },
  test: {
    reporters: ['default', './tests/support/summary-reporter.ts'],
    include: ['tests/**/*.test.ts'],
    env: { GROUNDSWELL_DECORATOR_MODE: 'tc39' },
    typecheck: { enabled: true, include: ['tests/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
