import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declarationClosure } from './declaration-closure.js';
import { ensureFreshDist, publishedFiles } from './fresh-dist.js';
import { missingPrerequisites } from './pack-prerequisites.js';
import { runProcess, type ProcessOutput } from './run-process.js';
import { packAndInstall, type ScratchInstall } from './scratch-install.js';
import { writeProjects, type ProjectId, type TsProject } from './scratch-projects.js';

// The published package as users get it: `npm pack` of the built dist/, installed into a scratch
// project, loaded from ESM and CommonJS and compiled by TypeScript under each module setting.

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const inCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false';
const missing = missingPrerequisites(root);
const skip = missing.length > 0 && !inCi;
if (skip) console.warn(`pack test skipped (CI would fail): ${missing.join('; ')}`);

// Generous: a cold build plus three library-checking compiles on two slow cores, next to other tests.
const TIMEOUT = 300_000;

type Settled = { ok: true; output: string } | { ok: false; error: unknown };

/** Jobs start together in beforeAll (the compiles run in parallel); each test awaits its own. */
function settle(job: Promise<string>): Promise<Settled> {
  return job.then(
    (output) => ({ ok: true as const, output }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

async function outcome(job: Promise<Settled> | undefined): Promise<string> {
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

describe.skipIf(skip)('the packed package', () => {
  let scratch: string | undefined;
  let install: ScratchInstall | undefined;
  const jobs = new Map<string, Promise<Settled>>();
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
  }, TIMEOUT);

  afterAll(() => {
    console.log(`pack test ${((performance.now() - started) / 1000).toFixed(1)}s: ${timings.join(', ')}`);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('packs every file package.json points at, and no sources', () => {
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    const packed = install?.packedFiles ?? [];
    expect(publishedFiles(packageJson).filter((file) => !packed.includes(file))).toEqual([]);
    expect(packed.filter((file) => file.startsWith('src/') || file.startsWith('tests/'))).toEqual([]);
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
});
