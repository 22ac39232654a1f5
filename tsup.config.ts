import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import { viewerPagePlugin } from './src/viewer/page/build-page.js';

type TsupPlugin = NonNullable<Options['plugins']>[number];
type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * The CommonJS build loads on-demand chunks (the MCP runtime) and the optional `pg` and `@opentelemetry/api` peers with
 * `require`, not `import()`: runners that evaluate CommonJS in a vm without ESM support (Jest's
 * default) reject `import()`. Runs before tsup turns the chunk into CommonJS, which leaves
 * `require` calls as they are.
 */
const requireChunksInCjs: TsupPlugin = {
  name: 'require-chunks-in-cjs',
  renderChunk(code, info) {
    if (this.format !== 'cjs') return undefined;
    // The command line imports the user's workflow module with import(); it runs under Node only
    // (bin/groundswell.mjs loads its ESM build), never in a CommonJS vm.
    if (/[\\/]cli\.cjs$/.test(info.path)) return undefined;
    const rewritten = code.replace(/\bimport\((["'](?:\.\/[\w.-]+\.cjs|pg|ioredis|zod|@opentelemetry\/api)["'])\)/g, 'Promise.resolve().then(() => require($1))');
    if (/\bimport\(/.test(rewritten)) throw new Error(`${info.path}: an import() the CommonJS build cannot rewrite`);
    // The line map shifts by a few columns on the rewritten line only, so the esbuild map is kept.
    return rewritten === code ? undefined : { code: rewritten };
  },
};

/**
 * Every subpath entry imports the root entry first. esbuild makes one shared chunk per set of
 * entries that reach a module; with every entry reaching the root's modules they share one chunk,
 * so `import 'groundswell'` reads a handful of files instead of two dozen small ones (start-up
 * time; decision 0055). A subpath then loads the root's code too, which its users load anyway.
 */
const rootFirst: EsbuildPlugin = {
  name: 'root-first',
  setup(build) {
    const entries = build.initialOptions.entryPoints as Record<string, string>;
    const cwd = build.initialOptions.absWorkingDir ?? process.cwd();
    const root = resolve(cwd, entries['index'] ?? '');
    const subpaths = new Set(Object.values(entries).map((entry) => resolve(cwd, entry)));
    subpaths.delete(root);
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!subpaths.has(args.path)) return undefined;
      const source = await readFile(args.path, 'utf8');
      return { contents: `import ${JSON.stringify(root)};\n${source}`, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
};

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    mcp: 'src/mcp/index.ts',
    plans: 'src/plans/index.ts',
    cache: 'src/cache/index.ts',
    durable: 'src/durable/index.ts',
    postgres: 'src/durable/postgres/index.ts',
    viewer: 'src/viewer/index.ts',
    web: 'src/web/index.ts',
    'web-client': 'src/web/client/index.ts',
    otel: 'src/otel/index.ts',
    redis: 'src/redis/index.ts',
    dbos: 'src/durable/dbos/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { paths: {} } },
  tsconfig: 'tsconfig.build.json',
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // Shared chunks: the subpath entries must use the same error classes (and cache stores) as
  // groundswell, and the MCP code an agent loads on demand must be the one groundswell/mcp exports.
  splitting: true,
  treeshake: true,
  plugins: [requireChunksInCjs],
  // The viewer page is made afresh from src/viewer/page/ (decision 0048).
  esbuildPlugins: [viewerPagePlugin, rootFirst],
});
