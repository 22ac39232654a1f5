import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declarationClosure } from './declaration-closure.js';
import { ensureFreshDist, publishedFiles } from './fresh-dist.js';
import { APP_PACKAGES, missingPrerequisites, optionalPeers } from './pack-prerequisites.js';
import { runProcess, type ProcessOutput } from './run-process.js';
import { installTarball, packAndInstall, type ScratchInstall } from './scratch-install.js';
import {
  TYPESCRIPT_7_ENTRIES,
  writeLeanProject,
  writeProjects,
  writeTypeScript7Projects,
  type ProjectId,
  type TsProject,
  type TypeScript7Project,
  type TypeScript7ProjectId,
} from './scratch-projects.js';
import { installTypeScript7, RegistryUnreachableError, typeCheckWithTypeScript7, TYPESCRIPT_7, type TypeScript7 } from './typescript-7.js';

// The published package as users get it: `npm pack` of the built dist/, installed into a scratch
// project, loaded from ESM and CommonJS and compiled by TypeScript under each module setting; a
// strict user project is also type-checked by TypeScript 7 (installed from the npm registry).

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const inCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false';
const missing = missingPrerequisites(root);
const skip = missing.length > 0 && !inCi;
if (skip) console.warn(`pack test skipped (CI would fail): ${missing.join('; ')}`);
// TypeScript 7 comes from the registry: an offline machine skips that check (and says why), CI fails.
const requireRegistry = inCi || process.env.GROUNDSWELL_REQUIRE_SERVICES === '1';

// Generous: a cold build plus three library-checking compiles on two slow cores, next to other tests.
const TIMEOUT = 300_000;

type Settled<T = string> = { ok: true; output: T } | { ok: false; error: unknown };

/** Jobs start together in beforeAll (the compiles run in parallel); each test awaits its own. */
function settle<T>(job: Promise<T>): Promise<Settled<T>> {
  return job.then(
    (output) => ({ ok: true as const, output }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

async function outcome<T>(job: Promise<Settled<T>> | undefined): Promise<T> {
  const settled = await job;
  if (settled === undefined) throw new Error('the scratch project was not set up');
  if (!settled.ok) throw settled.error;
  return settled.output;
}

const timings: string[] = [];

async function timed(label: string, run: () => Promise<ProcessOutput>): Promise<ProcessOutput> {
  const result = await run();
  timings.push(`${label} ${(result.ms / 1000).toFixed(1)}s`);
  return result;
}

function runNode(file: string, cwd: string): Promise<ProcessOutput> {
  return timed(file, () => runProcess(process.execPath, [file], { cwd, label: `node ${file}` }));
}

async function compileAndRun(project: TsProject): Promise<string> {
  await timed(`tsc ${project.label}`, () =>
    runProcess(process.execPath, [tsc, '-p', project.dir], { cwd: project.dir, label: `tsc (${project.label})` }),
  );
  const outputs = await Promise.all(project.runs.map((file) => runNode(file, project.dir)));
  return outputs.map((output) => output.stdout).join('\n');
}

/** Type-checks a `noEmit` project; resolves with the files in its program, one a line. */
async function listProgram(dir: string): Promise<string> {
  const output = await timed('tsc lean', () => runProcess(process.execPath, [tsc, '-p', dir, '--listFiles'], { cwd: dir, label: 'tsc (lean app)' }));
  return output.stdout;
}

type TypeScript7Outcome = { skipped: string } | { version: string; files: readonly string[] };

/** One project's TypeScript 7 check; an unreachable registry is a skip unless this run requires it. */
async function checkWithTypeScript7(install: Promise<TypeScript7>, id: TypeScript7ProjectId, project: TypeScript7Project): Promise<TypeScript7Outcome> {
  let compiler: TypeScript7;
  try {
    compiler = await install;
  } catch (error) {
    if (error instanceof RegistryUnreachableError && !requireRegistry) return { skipped: error.message };
    throw error;
  }
  const checked = await typeCheckWithTypeScript7(compiler.tsc, project.dir, `tsc ${TYPESCRIPT_7} (${project.label})`);
  timings.push(`tsc ${TYPESCRIPT_7} ${id} ${(checked.ms / 1000).toFixed(1)}s`);
  return { version: compiler.version, files: checked.files };
}

describe.skipIf(skip)('the packed package', () => {
  let scratch: string | undefined;
  let lean: string | undefined;
  let install: ScratchInstall | undefined;
  const jobs = new Map<string, Promise<Settled>>();
  const typeScript7Jobs = new Map<TypeScript7ProjectId, Promise<Settled<TypeScript7Outcome>>>();
  let started = 0;

  beforeAll(async () => {
    started = performance.now();
    if (missing.length > 0) throw new Error(`the pack test cannot run: ${missing.join('; ')}`);
    await ensureFreshDist(root, (line) => console.log(line));
    scratch = mkdtempSync(join(tmpdir(), 'groundswell-pack-'));
    install = await packAndInstall(root, scratch);
    timings.push(`npm pack ${(install.packMs / 1000).toFixed(1)}s`);
    const { runtime, projects } = writeProjects(scratch, fixtures);
    for (const file of ['entries.mjs', 'entries.cjs', 'no-mcp.mjs', 'no-mcp.cjs', 'no-zod.mjs', 'no-zod.cjs']) {
      jobs.set(file, settle(runNode(file, runtime).then((output) => output.stdout)));
    }
    for (const [id, project] of Object.entries(projects)) jobs.set(id, settle(compileAndRun(project)));

    // The lean install gets its own folder: Node and tsc must not find the full install's packages above it.
    lean = mkdtempSync(join(tmpdir(), 'groundswell-lean-'));
    await installTarball(root, install.tarball, lean, { without: optionalPeers(root), extra: APP_PACKAGES });
    const app = writeLeanProject(lean, fixtures);
    for (const file of app.runs) jobs.set(`lean ${file}`, settle(runNode(file, app.dir).then((output) => output.stdout)));
    jobs.set('lean tsc', settle(listProgram(app.dir)));

    const typeScript7 = installTypeScript7(root).then((compiler) => {
      timings.push(`typescript@${TYPESCRIPT_7} ${compiler.cached ? 'cached' : 'installed'} ${(compiler.installMs / 1000).toFixed(1)}s`);
      return compiler;
    });
    const typeScript7Projects = writeTypeScript7Projects(scratch, fixtures);
    for (const id of ['nodenext', 'bundler'] as const) {
      typeScript7Jobs.set(id, settle(checkWithTypeScript7(typeScript7, id, typeScript7Projects[id])));
    }
  }, TIMEOUT);

  afterAll(() => {
    console.log(`pack test ${((performance.now() - started) / 1000).toFixed(1)}s: ${timings.join(', ')}`);
    for (const dir of [scratch, lean]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('packs every file package.json points at, and no sources', () => {
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    const packed = install?.packedFiles ?? [];
    expect(publishedFiles(packageJson).filter((file) => !packed.includes(file))).toEqual([]);
    expect(packed.filter((file) => file.startsWith('src/') || file.startsWith('tests/'))).toEqual([]);
  });

  it('ships the guide behind every docs/ link of the README, so the links resolve in the installed package', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const guides = [...new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1] ?? ''))].sort();
    expect(guides.length).toBeGreaterThan(5);
    const packed = install?.packedFiles ?? [];
    expect(guides.filter((guide) => !packed.includes(guide))).toEqual([]);
    // The installed copy is the one a reader opens from node_modules (or a registry renders).
    expect(guides.filter((guide) => !existsSync(join(install?.packageDir ?? '', guide)))).toEqual([]);
  });

  it('root, plans and cache declarations (ESM and CommonJS) reference no MCP SDK; groundswell/mcp has its own', () => {
    const dist = join(install?.packageDir ?? '', 'dist');
    for (const entry of ['index', 'plans', 'cache'].flatMap((name) => [`${name}.d.ts`, `${name}.d.cts`])) {
      const closure = declarationClosure(join(dist, entry));
      expect(closure.length).toBeGreaterThan(1);
      const offending = closure.filter((file) => readFileSync(file, 'utf8').includes('@modelcontextprotocol'));
      expect(offending, `${entry} and the chunks it imports`).toEqual([]);
    }
    expect(readFileSync(join(dist, 'mcp.d.ts'), 'utf8')).toContain('connectMcp');
  });

  it('ESM: every entry loads; an agent with an MCP server loads MCP on demand', async () => {
    expect(await outcome(jobs.get('entries.mjs'))).toContain('entries ok (esm)');
  }, TIMEOUT);

  it('CommonJS: every entry loads; an agent with an MCP server loads MCP on demand', async () => {
    expect(await outcome(jobs.get('entries.cjs'))).toContain('entries ok (cjs)');
  }, TIMEOUT);

  it('importing groundswell or any entry but groundswell/mcp does not load the MCP SDK (ESM)', async () => {
    expect(await outcome(jobs.get('no-mcp.mjs'))).toContain('no MCP SDK (esm)');
  }, TIMEOUT);

  it('requiring groundswell or any entry but groundswell/mcp does not load the MCP SDK (CommonJS)', async () => {
    expect(await outcome(jobs.get('no-mcp.cjs'))).toContain('no MCP SDK (cjs)');
  }, TIMEOUT);

  it('importing groundswell and running a workflow does not load zod (ESM)', async () => {
    expect(await outcome(jobs.get('no-zod.mjs'))).toContain('no zod (esm)');
  }, TIMEOUT);

  it('requiring groundswell and running a workflow does not load zod (CommonJS)', async () => {
    expect(await outcome(jobs.get('no-zod.cjs'))).toContain('no zod (cjs)');
  }, TIMEOUT);

  it('without the optional peers (npm leaves them out), an app on a local model runs an agent call; one with MCP servers says to install the SDK (ESM)', async () => {
    expect(await outcome(jobs.get('lean local-model.mjs'))).toContain('local model without the MCP SDK ok (esm)');
  }, TIMEOUT);

  it('without the optional peers, the same from CommonJS, whose build requires the MCP runtime', async () => {
    expect(await outcome(jobs.get('lean local-model.cjs'))).toContain('local model without the MCP SDK ok (cjs)');
  }, TIMEOUT);

  it('without the MCP SDK, a strict project (skipLibCheck off) using groundswell and groundswell/mcp types type-checks', async () => {
    const files = (await outcome(jobs.get('lean tsc'))).split('\n').map((line) => line.trim().replaceAll('\\', '/'));
    expect(files.filter((file) => file.endsWith('/node_modules/groundswell/dist/mcp.d.ts'))).toHaveLength(1);
    expect(files.filter((file) => file.includes('@modelcontextprotocol'))).toEqual([]);
  }, TIMEOUT);

  it('TypeScript node16: an ESM and a CommonJS project type-check and run a decorated workflow', async () => {
    const output = await outcome(jobs.get('node16' satisfies ProjectId));
    expect(output.match(/workflow ok/g)).toHaveLength(2);
  }, TIMEOUT);

  it('TypeScript node10 (module commonjs): type-checks and runs a decorated workflow', async () => {
    expect(await outcome(jobs.get('node10' satisfies ProjectId))).toContain('workflow ok');
  }, TIMEOUT);

  it('legacy decorators (NestJS-style: nodenext CommonJS, reflect-metadata, emitDecoratorMetadata): type-check and run', async () => {
    expect(await outcome(jobs.get('legacy' satisfies ProjectId))).toContain('legacy workflow ok');
  }, TIMEOUT);

  it.for<TypeScript7ProjectId>(['nodenext', 'bundler'])(
    `TypeScript ${TYPESCRIPT_7} (%s, strict, noEmit): a user project with groundswell, its subpaths, decorators and zod prompts type-checks`,
    { timeout: TIMEOUT },
    async (id, context) => {
      const result = await outcome(typeScript7Jobs.get(id));
      if ('skipped' in result) {
        console.warn(`TypeScript 7 check (${id}) skipped (CI would fail): ${result.skipped}`);
        return context.skip(result.skipped);
      }
      console.log(`TypeScript 7 (${id}): tsc printed "${result.version}", no errors, ${result.files.length} files in the program`);
      expect(result.version).toBe(`Version ${TYPESCRIPT_7}`);
      // The ESM declarations of each entry (not the CommonJS .d.cts), from the installed tarball.
      const entries = TYPESCRIPT_7_ENTRIES.map((entry) => `/node_modules/groundswell/dist/${entry}.d.ts`);
      expect(entries.filter((entry) => !result.files.some((file) => file.replaceAll('\\', '/').endsWith(entry)))).toEqual([]);
    },
  );
});
