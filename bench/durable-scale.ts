/**
 * A 100,000-step durable run on the journal store: the first run (killed right after its last
 * step, as a crash would) and its resume, each in a process of its own, with wall time and peak
 * memory (max RSS). `npx tsx bench/durable-scale.ts [steps]`. The resume serves every step from
 * the store; the target is that it costs no more time than the first run and at most 2x its memory.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [phase, dirArg, stepsArg] = process.argv.slice(2);

async function child(mode: 'first' | 'resume', dir: string, steps: number): Promise<void> {
  const { createWorkflow, resume } = await import('../src/index.js');
  const { JournalRunStore } = await import('../src/durable/index.js');
  const store = new JournalRunStore({ dir, fsync: 'off' });
  const build = () =>
    createWorkflow({ name: 'Scale', durable: { store, runId: 'scale' } }, async (ctx) => {
      let total = 0;
      for (let i = 0; i < steps; i += 1) total += await ctx.step(`s${i % 100}`, () => ({ i, text: `result ${i}` })).then((v) => v.i);
      if (mode === 'first') {
        report(started);
        process.exit(0); // killed after the last step settled: the run stays "running"
      }
      return total;
    });
  const started = performance.now();
  if (mode === 'first') await build().run();
  else {
    const total = await resume<number>('scale', { store, workflows: { Scale: build } });
    if (total !== (steps * (steps - 1)) / 2) throw new Error(`wrong total ${total}`);
    report(started);
  }
}

function report(started: number): void {
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms: Math.round(ms), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }) + '\n');
}

if (phase === 'first' || phase === 'resume') {
  await child(phase, dirArg as string, Number(stepsArg));
} else {
  const steps = Number(phase ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), 'gs-scale-'));
  const self = fileURLToPath(import.meta.url);
  const run = (mode: string): { ms: number; maxRssMb: number } => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', self, mode, dir, String(steps)], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (out.status !== 0) throw new Error(`${mode} failed: ${out.stderr}`);
    return JSON.parse(out.stdout.trim().split('\n').at(-1) as string) as { ms: number; maxRssMb: number };
  };
  try {
    const first = run('first');
    const again = run('resume');
    console.log(`| ${steps} steps | wall time | peak RSS |`);
    console.log('|---|---|---|');
    console.log(`| first run | ${first.ms} ms | ${first.maxRssMb} MB |`);
    console.log(`| resume | ${again.ms} ms (${(again.ms / first.ms).toFixed(2)}x) | ${again.maxRssMb} MB (${(again.maxRssMb / first.maxRssMb).toFixed(2)}x) |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
