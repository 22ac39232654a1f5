import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { paths: {} } },
  tsconfig: 'tsconfig.build.json',
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // Shared chunks: groundswell/testing must use the same error classes as groundswell.
  splitting: true,
  treeshake: true,
});
