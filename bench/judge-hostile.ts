/**
 * Hostile-input figures for the judge's read-only tools:
 * 1. a swap race: a child process swaps a directory inside the root for a symlink to an outside
 *    directory and back, as fast as it can, while read_file reads a file through that directory;
 *    counts reads that returned the outside content (must be 0);
 * 2. the longest event-loop block while find_files runs pathological globs and grep runs
 *    pathological regular expressions (monitorEventLoopDelay, 1 ms resolution).
 *
 * Run: npx tsx bench/judge-hostile.ts [attempts]   (default 100000 race attempts; 0 skips the race)
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { Tool } from 'groundswell';
import { readOnlyTools } from 'groundswell/plans';
import { startSwapLoop } from '../tests/support/swap-loop.js';

const SECRET = 'OUTSIDE-SECRET';
const CONCURRENCY = 8;

async function call(tools: readonly Tool[], name: string, input: unknown): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const result: unknown = await tool.execute(tool.input.parse(input), { env: {}, signal: undefined, agentName: 'bench', toolUseId: 'toolu_bench' });
  return typeof result === 'string' ? result : JSON.stringify(result);
}

async function swapRace(base: string, attempts: number): Promise<void> {
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  const dir = path.join(root, 'dir');
  await mkdir(dir, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(dir, 'file.txt'), 'INSIDE\n');
  await writeFile(path.join(outside, 'file.txt'), `${SECRET}\n`);
  const tools = readOnlyTools(root);
  const counts = { inside: 0, outside: 0, refused: 0 };
  // Which check refused: the descriptor check is the one that closes the race.
  const reasons = new Map<string, number>();
  const loop = await startSwapLoop(dir, outside);
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < attempts) {
      next += 1;
      try {
        const text = await call(tools, 'read_file', { path: 'dir/file.txt' });
        if (text.includes(SECRET)) counts.outside += 1;
        else counts.inside += 1;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (message.includes(SECRET)) counts.outside += 1;
        else {
          counts.refused += 1;
          const reason = refusalReason(message);
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  const swaps = await loop.stop();
  console.log('## Swap race (read_file "dir/file.txt" while dir <-> symlink to outside)');
  console.log(`attempts            ${attempts} (${CONCURRENCY} in flight)`);
  console.log(`swaps by the child  ${swaps}`);
  console.log(`read inside content ${counts.inside}`);
  console.log(`refused (error)     ${counts.refused}`);
  for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(6)}  ${reason}`);
  console.log(`OUTSIDE content     ${counts.outside}`);
  console.log(`time                ${seconds.toFixed(1)} s (${Math.round(attempts / seconds)} reads/s)`);
  if (counts.outside !== 0) process.exitCode = 1;
}

function refusalReason(message: string): string {
  if (message.includes('led outside the project root when it was opened')) return 'descriptor check: the open landed outside (race caught after realpath)';
  if (message.includes('became a symlink while it was being opened')) return 'O_NOFOLLOW: final component became a symlink';
  if (message.includes('changed while it was being opened')) return 'descriptor check: could not be verified';
  if (message.includes('symlink that points outside')) return 'realpath check: symlink points outside';
  if (message.includes('ENOENT')) return 'missing at that instant (ENOENT)';
  return message.slice(0, 80);
}

interface Probe {
  readonly label: string;
  readonly tool: string;
  readonly input: Record<string, unknown>;
}

async function eventLoopBlocks(base: string): Promise<void> {
  const root = path.join(base, 'patterns');
  // Names for the globs: the 45 characters, the longest a file name can be, and many files.
  await mkdir(path.join(root, 'many'), { recursive: true });
  await writeFile(path.join(root, 'a'.repeat(45)), '');
  await writeFile(path.join(root, 'a'.repeat(250)), '');
  await Promise.all(Array.from({ length: 2_000 }, (_, i) => writeFile(path.join(root, 'many', `${'a'.repeat(200)}${i}`), '')));
  // Lines for the regular expressions: the 27 characters, 5 000 and 2 MB minus a byte.
  await writeFile(path.join(root, 'short.txt'), `${'a'.repeat(27)}!\n`);
  await writeFile(path.join(root, 'long.txt'), `${'a'.repeat(5_000)}!\n`);
  await writeFile(path.join(root, 'huge.txt'), `${'a'.repeat(2 * 1024 * 1024 - 2)}!`);
  const tools = readOnlyTools(root, { timeBudgetMs: 2_000 });
  const probes: Probe[] = [
    { label: 'glob: ten * vs 45-char name (issue)', tool: 'find_files', input: { pattern: `${'*a'.repeat(9)}*b` } },
    { label: 'glob: 40 * vs 2 000 names of 200+ chars', tool: 'find_files', input: { pattern: `${'*a'.repeat(40)}*b` } },
    { label: 'glob: 1 000-char glob (500 *) vs all names', tool: 'find_files', input: { pattern: `${'*a'.repeat(499)}*b` } },
    { label: 'glob: 200 ** and braces vs all paths', tool: 'find_files', input: { pattern: `${'{**a,*a}'.repeat(120)}**b` } },
    { label: 'regex: ^(a+)+$ (refused)', tool: 'grep', input: { pattern: '^(a+)+$', regex: true, path: 'short.txt' } },
    { label: 'regex: ^a*a*a*a*a*a*$ on 5 000 chars (budget)', tool: 'grep', input: { pattern: '^a*a*a*a*a*a*$', regex: true, path: 'long.txt' } },
    { label: 'regex: .*.*.*.*.*= on a 2 MB line (budget)', tool: 'grep', input: { pattern: '.*.*.*.*.*=', regex: true, path: 'huge.txt' } },
    { label: 'regex: a+b on a 2 MB line', tool: 'grep', input: { pattern: 'a+b', regex: true, path: 'huge.txt' } },
    { label: 'literal, ignoreCase, on a 2 MB line', tool: 'grep', input: { pattern: 'A!', ignoreCase: true, path: 'huge.txt' } },
  ];
  // One benign call of each kind first: the first call of a code path pays one-time compilation
  // (tens of ms on a loaded machine), which is not what a pattern costs.
  await call(tools, 'find_files', { pattern: 'zzz' });
  await call(tools, 'find_files', { pattern: '*.txt' });
  await call(tools, 'grep', { pattern: 'zzz', regex: true, path: 'short.txt' });
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  console.log('\n## Longest event-loop block per call (monitorEventLoopDelay, resolution 1 ms; after one warm-up call per tool)');
  // The noise floor on this machine right now: the same measurement while doing nothing.
  histogram.enable();
  await delay(2_000);
  histogram.disable();
  console.log(`${'baseline: idle for 2 s'.padEnd(50)} call  2000 ms  max block ${(histogram.max / 1e6).toFixed(1).padStart(6)} ms  (load average ${loadavg()[0]?.toFixed(1)})`);
  for (const probe of probes) {
    histogram.reset();
    histogram.enable();
    const started = performance.now();
    let result: string;
    try {
      result = await call(tools, probe.tool, probe.input);
    } catch (error) {
      result = `error: ${error instanceof Error ? error.message : String(error)}`;
    }
    const took = performance.now() - started;
    histogram.disable();
    const worst = histogram.max / 1e6;
    const summary = result.split('\n').at(-1)?.slice(0, 90) ?? '';
    console.log(`${probe.label.padEnd(50)} call ${took.toFixed(0).padStart(5)} ms  max block ${worst.toFixed(1).padStart(6)} ms  -> ${summary}`);
  }
}

async function main(): Promise<void> {
  const attempts = Number(process.argv[2] ?? 100_000);
  const base = await mkdtemp(path.join(tmpdir(), 'gs-judge-hostile-'));
  try {
    if (attempts > 0) await swapRace(base, attempts);
    await eventLoopBlocks(base);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

await main();
