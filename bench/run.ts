/**
 * Entry point: `npm run bench` (tsx with --expose-gc). Prints one plain-text table per workload.
 * Targets are informational: PASS/MISS is printed, the exit code is never affected by them.
 */
import { loadavg } from 'node:os';
import { elapsedNs, environment, GC_AVAILABLE, now } from './harness.js';
import { baselineW1, runW1 } from './w1-sequential-steps.js';
import { baselineW2, runW2 } from './w2-concurrent-children.js';
import { baselineW3, runW3 } from './w3-event-depth.js';
import { runW4 } from './w4-cache-key.js';
import { runW5 } from './w5-cache-hit.js';
import { runW6 } from './w6-agent-overhead.js';
import { runW7 } from './w7-spawn-loop.js';

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

const start = now();
console.log(`groundswell bench — ${new Date().toISOString()}`);
console.log(environment());
console.log(`load average at start: ${load()}`);
if (!GC_AVAILABLE) {
  console.log('WARNING: globalThis.gc is missing (run with --expose-gc); no forced GC, retained bytes are unreliable.');
}
console.log(
  'Times are medians. "vs plain" = the same loop of awaited async functions without groundswell, measured in\n' +
    'this process before any workflow ran (the first workflow run makes AsyncLocalStorage install promise hooks).',
);

// All plain baselines first: once a workflow has run, every promise in the process pays for the hooks.
const b1 = await baselineW1();
const b2 = await baselineW2();
const b3 = await baselineW3();

await runW1(b1);
await runW2(b2);
await runW3(b3);
await runW4();
await runW5();
await runW6();
await runW7();

console.log(`\ntotal bench time ${(elapsedNs(start) / 1e9).toFixed(1)} s, load average at end: ${load()}`);
