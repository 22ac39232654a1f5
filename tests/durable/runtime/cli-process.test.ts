import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { importTypeScript, WorkflowsModuleError } from '../../../src/cli/load-workflows.js';
import { ensureFreshDist } from '../../package/fresh-dist.js';

// The built command line, as `npx groundswell` runs it.
const ROOT = join(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'groundswell.mjs');
/** A child process starting on a busy machine: generous, since only a hang should fail. */
const CHILD_MS = 120_000;

let dir: string;
beforeAll(() => ensureFreshDist(ROOT, (line) => console.log(`cli process test: ${line}`)), 600_000);
beforeEach(() => {
  // Under the repository, so a workflows module's `import 'groundswell'` finds this package.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.tmp', 'gs-cli-proc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bin; with `closeAfterFirstChunk` the reader closes stdout once it has read anything, like `| head -1`. */
function groundswell(args: readonly string[], closeAfterFirstChunk = false): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (closeAfterFirstChunk) child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function suspendedGate(store: JournalRunStore): Promise<void> {
  const wf = createWorkflow({ name: 'Gate', durable: { store, runId: 'g1' } }, async (ctx) => {
    const ok = await ctx.waitFor('go', z.object({ ok: z.boolean() }));
    return ok.ok ? 'opened' : 'closed';
  });
  expect(isSuspension(await wf.run().catch((e: unknown) => e))).toBe(true);
}

describe('the groundswell bin', () => {
  it('runs show | head: a reader that closes early ends the command quietly with exit code 0', async () => {
    const store = new JournalRunStore({ dir: join(dir, 'runs'), fsync: 'off' });
    await store.createRun({ id: 'big', rootName: 'Big', status: 'completed' });
    // About 2 MB of tree string: far more than a pipe holds, so writing goes on after the reader left.
    const child = (i: number) => ({
      id: `c${i}`, kind: 'step', name: `step ${i} ${'x'.repeat(20_000)}`, workflowId: 'w', parentId: 'root', status: 'completed',
      stateSnapshot: null, logs: [], events: [], dropped: { events: 0, logs: 0, children: 0 }, children: [],
    });
    const root = { ...child(0), id: 'root', kind: 'workflow', name: 'Big', parentId: null, children: Array.from({ length: 100 }, (_, i) => child(i + 1)) };
    await store.putTree('big', { format: 'groundswell.run', version: 1, exportedAt: 0, root });
    await store.close();

    const ended = await groundswell(['runs', 'show', 'big', '--store', join(dir, 'runs')], true);
    expect(ended.stdout).toMatch(/^run {7}big/);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
  }, CHILD_MS);

  it('--workflows app.ts: a TypeScript module is loaded through tsx', async () => {
    const store = new JournalRunStore({ dir: join(dir, 'runs'), fsync: 'off' });
    await suspendedGate(store);
    await store.close();
    // The project's own tsconfig (tsx reads the nearest one; the repository's maps groundswell to src/).
    writeFileSync(join(dir, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n');
    writeFileSync(
      join(dir, 'app.ts'),
      `import { z } from 'zod';\nimport { createWorkflow, type Workflow } from 'groundswell';\n\n` +
        `const Approval = z.object({ ok: z.boolean() });\ntype Approval = z.infer<typeof Approval>;\n\n` +
        `function gate(): Workflow<string> {\n  return createWorkflow({ name: 'Gate' }, async (ctx) => {\n` +
        `    const answer: Approval = await ctx.waitFor('go', Approval);\n    return answer.ok ? 'opened' : 'closed';\n  });\n}\n\n` +
        `export const workflows: Record<string, () => Workflow<string>> = { Gate: gate };\n`,
    );
    const ended = await groundswell(['runs', 'signal', 'g1', 'go', '{"ok":true}', '--store', join(dir, 'runs'), '--workflows', join(dir, 'app.ts')]);
    expect(ended.stderr).toBe('');
    expect(ended.stdout).toBe('Run g1 completed: "opened"\n');
    expect(ended.code).toBe(0);
  }, CHILD_MS);

  it('without tsx, a TypeScript module is refused with what to do instead', async () => {
    const missing = Object.assign(new Error("Cannot find package 'tsx'"), { code: 'ERR_MODULE_NOT_FOUND' });
    const refused = await importTypeScript('file:///app/app.ts', 'app.ts', () => Promise.reject(missing)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowsModuleError);
    expect((refused as Error).message).toBe('app.ts is TypeScript, which needs tsx to load: install it (npm install --save-dev tsx), or compile the module to .js and pass that.');
    expect((refused as Error).cause).toBe(missing);
  });
});
