import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type ProjectId = 'node16' | 'node10' | 'legacy';

/** A TypeScript project compiled against the installed package, then run with node. */
export interface TsProject {
  readonly label: string;
  readonly dir: string;
  /** Compiled entry points, relative to `dir`. */
  readonly runs: readonly string[];
}

// The compiler's defaults otherwise, skipLibCheck included (false, but for the NestJS-style
// project): the package's declarations and everything they import are checked the way a strict
// user project checks them.
const COMMON = { strict: true, types: ['node'], noEmitOnError: true, pretty: false } as const;

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function copyFixtures(from: string, to: string, files: readonly string[], type: 'module' | 'commonjs'): void {
  mkdirSync(to, { recursive: true });
  writeJson(join(to, 'package.json'), { private: true, type });
  for (const file of files) cpSync(join(from, file), join(to, file));
}

/**
 * The projects of the matrix: each module setting once and each decorator mode once, since
 * decorator typing does not depend on module resolution (and each type-check with library
 * checking on costs several seconds of CPU).
 */
export function writeProjects(scratch: string, fixtures: string): { runtime: string; projects: Record<ProjectId, TsProject> } {
  writeJson(join(scratch, 'package.json'), { name: 'groundswell-pack-scratch', private: true });
  const runtime = join(scratch, 'runtime');
  cpSync(join(fixtures, 'runtime'), runtime, { recursive: true });

  const typescript = join(fixtures, 'typescript');
  const tc39 = ['main.ts', 'workflow.ts'];

  // node16: one program, an ESM ("type": "module") and a CommonJS package side by side.
  const node16 = join(scratch, 'node16');
  copyFixtures(typescript, join(node16, 'esm'), tc39, 'module');
  copyFixtures(typescript, join(node16, 'cjs'), tc39, 'commonjs');
  writeJson(join(node16, 'tsconfig.json'), {
    // The strictest common flags too: they change how declarations are checked.
    compilerOptions: {
      ...COMMON,
      module: 'node16',
      moduleResolution: 'node16',
      target: 'ES2022',
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
    },
    files: ['esm/main.ts', 'cjs/main.ts'],
  });

  // esModuleInterop as `tsc --init` sets it: zod's own CommonJS declarations need it under node10.
  // Node-only libs here and below; the node16 program keeps the default libs (DOM included).
  const node10 = join(scratch, 'node10');
  copyFixtures(typescript, node10, tc39, 'commonjs');
  writeJson(join(node10, 'tsconfig.json'), {
    compilerOptions: { ...COMMON, module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, target: 'ES2022', lib: ['ES2022'] },
    files: ['main.ts'],
  });

  // NestJS's starter settings: CommonJS under nodenext, legacy decorators with design-time
  // metadata, skipLibCheck on. Declarations check the same in either decorator mode, and the two
  // programs above already check them; this one checks decorated user code against them.
  const legacy = join(scratch, 'legacy');
  copyFixtures(typescript, legacy, ['legacy-main.ts', 'workflow.ts'], 'commonjs');
  writeJson(join(legacy, 'tsconfig.json'), {
    compilerOptions: {
      ...COMMON,
      skipLibCheck: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'ES2023',
      lib: ['ES2023'],
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    },
    files: ['legacy-main.ts'],
  });

  return {
    runtime,
    projects: {
      node16: { label: 'node16 ESM + CommonJS, TC39', dir: node16, runs: ['esm/main.js', 'cjs/main.js'] },
      node10: { label: 'node10 commonjs, TC39', dir: node10, runs: ['main.js'] },
      legacy: { label: 'nodenext CommonJS, legacy + metadata', dir: legacy, runs: ['legacy-main.js'] },
    },
  };
}

export type TypeScript7ProjectId = 'nodenext' | 'bundler';

/** A user project that TypeScript 7 only type-checks (`noEmit`): the declarations are what it tests. */
export interface TypeScript7Project {
  readonly label: string;
  readonly dir: string;
}

/** The entry declarations an ESM user project must resolve: the root and the subpaths it imports. */
export const TYPESCRIPT_7_ENTRIES = ['index', 'testing', 'durable', 'cache', 'plans'] as const;

/**
 * The same strict user code under the two module settings ESM users have: Node's own resolution
 * (`nodenext`, a `"type": "module"` package) and a bundler's. Library checking stays on, so every
 * declaration the package ships is checked by the new compiler too.
 */
export function writeTypeScript7Projects(scratch: string, fixtures: string): Record<TypeScript7ProjectId, TypeScript7Project> {
  const files = { [join(fixtures, 'typescript7')]: ['app.ts'], [join(fixtures, 'typescript')]: ['workflow.ts'] };
  const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', types: ['node'], pretty: false } as const;
  const write = (name: string, options: Record<string, unknown>): string => {
    const dir = join(scratch, name);
    for (const [from, names] of Object.entries(files)) copyFixtures(from, dir, names, 'module');
    writeJson(join(dir, 'tsconfig.json'), { compilerOptions: { ...compilerOptions, ...options }, files: ['app.ts'] });
    return dir;
  };
  return {
    nodenext: { label: 'TypeScript 7, module nodenext (ESM)', dir: write('ts7-nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }) },
    bundler: { label: 'TypeScript 7, moduleResolution bundler', dir: write('ts7-bundler', { module: 'esnext', moduleResolution: 'bundler' }) },
  };
}

/** The app of the lean install (no optional peers): its runtime fixtures and a type-only project. */
export interface LeanProject {
  readonly dir: string;
  /** Run with node in `dir`. */
  readonly runs: readonly string[];
}

/**
 * An app on a local model as npm installs it (optional peers, the MCP SDK among them, left out):
 * `<lean>/app`, beside `<lean>/node_modules`. Its tsconfig is strict with library checking on, so
 * the package's declarations must not need the SDK.
 */
export function writeLeanProject(lean: string, fixtures: string): LeanProject {
  const dir = join(lean, 'app');
  copyFixtures(join(fixtures, 'lean'), dir, ['app.ts', 'local-model.mjs', 'local-model.cjs', 'local-model-checks.cjs'], 'module');
  writeJson(join(dir, 'tsconfig.json'), {
    compilerOptions: { ...COMMON, noEmit: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'ES2022' },
    files: ['app.ts'],
  });
  return { dir, runs: ['local-model.mjs', 'local-model.cjs'] };
}
