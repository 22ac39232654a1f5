/**
 * Entry point: `npm run bench` (tsx with --expose-gc). Prints one plain-text table per workload.
 * Targets are informational: PASS/MISS is printed, the exit code is never affected by them.
 */
import { environment, GC_AVAILABLE, elapsedNs, now } from './harness.js';
import { runW1 } from './w1-sequential-steps.js';
import { runW2 } from './w2-concurrent-children.js';
import { runW3 } from './w3-event-depth.js';
import { runW4 } from './w4-cache-key.js';

const start = now();
console.log(`groundswell bench — ${new Date().toISOString()}`);
console.log(environment());
if (!GC_AVAILABLE) {
  console.log('WARNING: globalThis.gc is missing (run with --expose-gc); no forced GC, retained bytes are unreliable.');
}
console.log('Times are medians; "vs plain" = the same loop of awaited async functions without groundswell, same process.');

await runW1();
await runW2();
await runW3();
await runW4();

console.log(`\ntotal bench time ${(elapsedNs(start) / 1e9).toFixed(1)} s`);
