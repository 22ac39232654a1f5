/**
 * Entry point: `npm run bench` (tsx with --expose-gc) runs every workload; `npm run bench -- W1 W5`
 * runs only those (names case-insensitive; `import` = W8, `cold` = W14). Prints one plain-text table per
 * workload, then every ratio against its target. Targets are ratios to a floor measured in the
 * same process (floors.ts), because these machines are noisy; absolute targets are printed as
 * info. Each workload runs in a fresh process of its own (this file, with GROUNDSWELL_BENCH_ONE
 * naming it), so one workload's heap, compiled code and promise hooks never weigh on the next.
 * A gate that could not run (no PostgreSQL, a workload that threw) prints as NOT RUN and counts:
 * the exit code is 1 when any gate missed or did not run; `--explore` (or GROUNDSWELL_BENCH_EXPLORE=1)
 * always exits 0, for exploring.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { assertBuiltPackage, ensureDist } from './built-package.js';
import { elapsedNs, environment, fmtX, GC_AVAILABLE, gateStatus, now, ratioResults, recordNotRun, section, table, type RatioResult } from './harness.js';

const ALL = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7', 'W8', 'W9', 'W10', 'W11', 'W12', 'W13', 'W14', 'W15', 'W16'] as const;
type Workload = (typeof ALL)[number];
const ALIASES: Record<string, Workload> = { IMPORT: 'W8', COLD: 'W14' };

const EXPLORE_FLAG = '--explore';
/** Exploring: print everything, exit 0 whatever missed. */
const EXPLORE = process.argv.includes(EXPLORE_FLAG) || process.env.GROUNDSWELL_BENCH_EXPLORE === '1';

function selected(): Set<Workload> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--' && arg !== EXPLORE_FLAG);
  if (args.length === 0) return new Set(ALL);
  const chosen = new Set<Workload>();
  for (const arg of args) {
    const name = ALIASES[arg.toUpperCase()] ?? arg.toUpperCase();
    if (!(ALL as readonly string[]).includes(name)) {
      console.error(`unknown workload "${arg}"; choose from ${ALL.join(', ')} (or "import" for W8, "cold" for W14)`);
      process.exit(2);
    }
    chosen.add(name as Workload);
  }
  return chosen;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const ONE = 'GROUNDSWELL_BENCH_ONE';
// What a workload's process prints last: its ratios, for the parent's closing table.
const RATIOS_LINE = '@@ratios ';


/** Every chosen workload in a child process of its own, in order; their ratios in one table. */
async function runEach(run: Set<Workload>): Promise<void> {
  const start = now();
  console.log(`groundswell bench — ${new Date().toISOString()}`);
  console.log(environment());
  console.log(`workloads: ${[...run].join(' ')}; load average at start: ${load()}; each in a fresh process`);
  console.log(
    'Times are medians. Targets are ratios to each workload\'s FLOOR (bench/floors.ts: the same work written by hand\n' +
      'without groundswell, same semantics), measured in the same process and interleaved run by run. "plain" rows (info)\n' +
      'are the loop without AsyncLocalStorage, measured before any workflow or floor switched on its promise hooks.',
  );
  for (const workload of run) {
    const { ratios, code } = await inItsOwnProcess(workload);
    if (ratios !== undefined) ratioResults.push(...ratios);
    else {
      // It died before reporting: whatever it gates is counted, not left out of the table.
      console.log(`\n${workload}: FAILED, no ratios (its output is above)`);
      recordNotRun(workload, 'every gate of the workload', Number.NaN, `its process exited with ${code ?? 'a signal'} before reporting`);
    }
  }
  summary(start);
}

/** Runs `workload` in a child process, its output passed through as it comes; resolves to its ratios and exit code. */
function inItsOwnProcess(workload: Workload): Promise<{ ratios: RatioResult[] | undefined; code: number | null }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, [ONE]: workload },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let ratios: RatioResult[] | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(RATIOS_LINE)) ratios = JSON.parse(line.slice(RATIOS_LINE.length)) as RatioResult[];
    else console.log(line);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ ratios, code })));
}

/**
 * One workload in this process: its plain baseline first (W1-W3), then the workload itself.
 * Imported here, not at the top: they import `groundswell` from dist/, which the parent process
 * builds first on a fresh checkout (a static import would fail before it could).
 */
async function runWorkload(workload: Workload): Promise<void> {
  if (!GC_AVAILABLE) {
    console.log('WARNING: globalThis.gc is missing (run with --expose-gc); no forced GC, retained bytes are unreliable.');
  }
  // The plain baseline first: once AsyncLocalStorage has run, every promise in the process pays for the hooks.
  if (workload === 'W1') {
    const { baselineW1, runW1 } = await import('./w1-sequential-steps.js');
    await runW1(await baselineW1());
  } else if (workload === 'W2') {
    const { baselineW2, runW2 } = await import('./w2-concurrent-children.js');
    await runW2(await baselineW2());
  } else if (workload === 'W3') {
    const { baselineW3, runW3 } = await import('./w3-event-depth.js');
    await runW3(await baselineW3());
  } else {
    await (await RUNNERS[workload]())();
  }
}

const RUNNERS: Record<Exclude<Workload, 'W1' | 'W2' | 'W3'>, () => Promise<() => Promise<void>>> = {
  W4: async () => (await import('./w4-cache-key.js')).runW4,
  W5: async () => (await import('./w5-cache-hit.js')).runW5,
  W6: async () => (await import('./w6-agent-overhead.js')).runW6,
  W7: async () => (await import('./w7-spawn-loop.js')).runW7,
  W8: async () => (await import('./w8-import.js')).runW8,
  W9: async () => (await import('./w9-durable-store.js')).runW9,
  W10: async () => (await import('./w10-dbos-workers.js')).runW10,
  W11: async () => (await import('./w11-viewer.js')).runW11,
  W12: async () => (await import('./w12-provider-overhead.js')).runW12,
  W13: async () => (await import('./w13-budget-overhead.js')).runW13,
  W14: async () => (await import('./w14-cold-first-call.js')).runW14,
  W15: async () => (await import('./w15-replay.js')).runW15,
  W16: async () => (await import('./w16-web-stream.js')).runW16,
};

function summary(start: bigint): void {
  section('Ratio targets (status = ratio ≤ target; NOT RUN = could not be measured, counted as a failure)');
  console.log(
    table(
      ['workload', 'measurement', 'ratio', 'target', 'status'],
      ratioResults.map((r) => [
        r.workload,
        r.notRun === undefined ? r.measurement : `${r.measurement} (${r.notRun})`,
        r.notRun === undefined ? fmtX(r.ratio) : '-',
        !Number.isFinite(r.limit) ? '-' : `≤ ${fmtX(r.limit)}`,
        gateStatus(r),
      ]),
      ['left', 'left', 'right', 'right', 'left'],
    ),
  );
  const count = (status: ReturnType<typeof gateStatus>): number => ratioResults.filter((r) => gateStatus(r) === status).length;
  const failed = count('MISS') + count('NOT RUN');
  console.log(`  ${count('PASS')} PASS, ${count('MISS')} MISS, ${count('NOT RUN')} NOT RUN`);
  console.log(`\ntotal bench time ${(elapsedNs(start) / 1e9).toFixed(1)} s, load average at end: ${load()}`);
  if (failed > 0 && !EXPLORE) {
    console.log(`exit code 1: ${failed} gate(s) missed or did not run (${EXPLORE_FLAG} exits 0)`);
    process.exitCode = 1;
  }
}

const one = process.env[ONE];
if (one === undefined) {
  ensureDist();
  await runEach(selected());
} else {
  assertBuiltPackage();
  try {
    await runWorkload(one as Workload);
  } catch (error) {
    // The gates it recorded before throwing still count; the rest are counted as NOT RUN.
    console.log(`\n${one}: THREW ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    recordNotRun(one, 'the gates after the point it threw', Number.NaN, `threw: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
  console.log(RATIOS_LINE + JSON.stringify(ratioResults));
}
