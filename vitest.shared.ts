import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import type { Plugin } from 'vite';

/**
 * vite 8's oxc transform does not lower TC39 decorators, so every `.ts` file goes through
 * esbuild first. `legacy` switches the whole run to `experimentalDecorators`.
 */
export function decoratorTransform(legacy: boolean): Plugin {
  return {
    name: 'groundswell:esbuild-decorators',
    enforce: 'pre',
    async transform(code, id) {
      if (!id.endsWith('.ts') || id.includes('/node_modules/')) return null;
      const result = await transform(code, {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcemap: true,
        sourcefile: id,
        tsconfigRaw: {
          compilerOptions: {
            experimentalDecorators: legacy,
            useDefineForClassFields: true,
            verbatimModuleSyntax: true,
          },
        },
      });
      return { code: result.code, map: result.map };
    },
  };
}

export const alias = {
  'groundswell/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
  'groundswell/mcp': fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)),
  'groundswell/plans': fileURLToPath(new URL('./src/plans/index.ts', import.meta.url)),
  'groundswell/cache': fileURLToPath(new URL('./src/cache/index.ts', import.meta.url)),
  'groundswell/durable': fileURLToPath(new URL('./src/durable/index.ts', import.meta.url)),
  'groundswell/postgres': fileURLToPath(new URL('./src/durable/postgres/index.ts', import.meta.url)),
  'groundswell/viewer': fileURLToPath(new URL('./src/viewer/index.ts', import.meta.url)),
  'groundswell/web/client': fileURLToPath(new URL('./src/web/client/index.ts', import.meta.url)),
  'groundswell/web': fileURLToPath(new URL('./src/web/index.ts', import.meta.url)),
  'groundswell/otel': fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)),
  'groundswell/redis': fileURLToPath(new URL('./src/redis/index.ts', import.meta.url)),
  'groundswell/dbos': fileURLToPath(new URL('./src/durable/dbos/index.ts', import.meta.url)),
  groundswell: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
};
