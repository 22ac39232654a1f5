/**
 * Entry point: `npm run bench` (tsx with --expose-gc) runs every workload; `npm run bench -- W1 W5`
 * runs only those (names case-insensitive; `import` = W8). Prints one plain-text table per
 * workload, then every ratio against its target. Targets are ratios to a floor measured in this
 * process (floors.ts), because these machines are noisy; absolute targets are printed as info.
 * PASS/MISS never changes the exit code.
 */
import { loadavg } from 'node:os';
import { elapsedNs, environment, fmtX, GC_AVAILABLE, now, ratioResults, section, table, verdict } from './harness.js';
import { baselineW1, runW1 } from './w1-sequential-steps.js';
import { baselineW2, runW2 } from './w2-concurrent-children.js';
import { baselineW3, runW3 } from './w3-event-depth.js';
import { runW4 } from './w4-cache-key.js';
import { runW5 } from './w5-cache-hit.js';
import { runW6 } from './w6-agent-overhead.js';
import { runW7 } from './w7-spawn-loop.js';
import { runW8 } from './w8-import.js';
import { runW9 } from './w9-durable-store.js';
import { runW10 } from './w10-dbos-workers.js';
import { runW11 } from './w11-viewer.js';
import { runW12 } from './w12-provider-overhead.js';
import { runW13 } from './w13-budget-overhead.js';

const ALL = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7', 'W8', 'W9', 'W10', 'W11', 'W12', 'W13'] as const;
type Workload = (typeof ALL)[number];
const ALIASES: Record<string, Workload> = { IMPORT: 'W8' };

function selected(): Set<Workload> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  if (args.length === 0) return new Set(ALL);
  const chosen = new Set<Workload>();
  for (const arg of args) {
    const name = ALIASES[arg.toUpperCase()] ?? arg.toUpperCase();
    if (!(ALL as readonly string[]).includes(name)) {
      console.error(`unknown workload "${arg}"; choose from ${ALL.join(', ')} (or "import" for W8)`);
      process.exit(2);
    }
    chosen.add(name as Workload);
  }
  return chosen;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const run = selected();

const start = now();
console.log(`groundswell bench — ${new Date().toISOString()}`);
console.log(environment());
console.log(`workloads: ${[...run].join(' ')}; load average at start: ${load()}`);
if (!GC_AVAILABLE) {
  console.log('WARNING: globalThis.gc is missing (run with --expose-gc); no forced GC, retained bytes are unreliable.');
}
console.log(
  'Times are medians. Targets are ratios to each workload\'s FLOOR (bench/floors.ts: the same work written by hand\n' +
    'without groundswell, same semantics), measured in this process and interleaved run by run. "plain" rows (info)\n' +
    'are the loop without AsyncLocalStorage, measured before any workflow or floor switched on its promise hooks.',
);

// All plain baselines first: once AsyncLocalStorage has run, every promise in the process pays for the hooks.
const b1 = run.has('W1') ? await baselineW1() : undefined;
const b2 = run.has('W2') ? await baselineW2() : undefined;
const b3 = run.has('W3') ? await baselineW3() : undefined;

if (b1 !== undefined) await runW1(b1);
if (b2 !== undefined) await runW2(b2);
if (b3 !== undefined) await runW3(b3);
if (run.has('W4')) await runW4();
if (run.has('W5')) await runW5();
if (run.has('W6')) await runW6();
if (run.has('W7')) await runW7();
if (run.has('W8')) await runW8();
if (run.has('W9')) await runW9();
if (run.has('W10')) await runW10();
if (run.has('W11')) await runW11();
if (run.has('W12')) await runW12();
if (run.has('W13')) await runW13();

section('Ratio targets (status = ratio ≤ target)');
console.log(
  table(
    ['workload', 'measurement', 'ratio', 'target', 'status'],
    ratioResults.map((r) => [r.workload, r.measurement, fmtX(r.ratio), `≤ ${fmtX(r.limit)}`, verdict(r.ratio, r.limit)]),
    ['left', 'left', 'right', 'right', 'left'],
  ),
);
const missed = ratioResults.filter((r) => r.ratio > r.limit).length;
console.log(`  ${ratioResults.length - missed} PASS, ${missed} MISS`);
console.log(`\ntotal bench time ${(elapsedNs(start) / 1e9).toFixed(1)} s, load average at end: ${load()}`);
