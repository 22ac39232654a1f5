/**
 * A workload and its floor timed call by call, in alternation. On this shared VM about 2% of
 * calls stall for 5–40 ms, and those stalls are 15–20% of a round's time, so a ratio of round
 * totals swings by ±0.2 with where they fall. Pairing each workload call with the floor call next
 * to it lets the host's stalls be left out, by a rule that cannot favour either side: the floor's
 * stalls (calls over 5× its median with no garbage collection in them) estimate how many the host
 * caused, and each side drops that many of its own slowest calls without a GC in them. The same
 * count and the same choice on both sides, so a side with more slow calls of its own keeps the
 * extra ones. A GC pause stays on the side it landed on: a side triggers collections in proportion
 * to what it allocates.
 */
import { performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { median } from './harness.js';

/** Per call, index by index (`workload[i]` ran next to `floor[i]`): nanoseconds, and when it ran. */
export interface CallPairs {
  readonly workload: number[];
  readonly floor: number[];
  /** [start, end] in `performance.now()` milliseconds, for matching GC pauses. */
  readonly workloadSpans: Array<readonly [number, number]>;
  readonly floorSpans: Array<readonly [number, number]>;
  /** GC pauses seen while the pairs ran: [start, end] in the same milliseconds. */
  readonly gcPauses: Array<readonly [number, number]>;
}

export function callPairs(): CallPairs {
  return { workload: [], floor: [], workloadSpans: [], floorSpans: [], gcPauses: [] };
}

/**
 * Runs `calls` pairs, each the workload call and the floor call back to back; which one goes
 * first alternates pair by pair, so neither always runs right after the other's work.
 */
export async function alternate(
  calls: number,
  workload: () => PromiseLike<unknown>,
  floor: () => PromiseLike<unknown>,
  into: CallPairs | undefined,
): Promise<void> {
  const seen: PerformanceEntry[] = [];
  const gc = new PerformanceObserver((list) => {
    seen.push(...list.getEntries());
  });
  gc.observe({ entryTypes: ['gc'] });
  try {
    for (let i = 0; i < calls; i += 1) {
      let w: Timed;
      let f: Timed;
      if (i % 2 === 0) {
        w = await timed(workload);
        f = await timed(floor);
      } else {
        f = await timed(floor);
        w = await timed(workload);
      }
      if (into === undefined) continue;
      into.workload.push(w.ns);
      into.workloadSpans.push(w.span);
      into.floor.push(f.ns);
      into.floorSpans.push(f.span);
    }
  } finally {
    // Node makes a GC's entry on a later turn of the event loop: calls answered in memory never
    // give it one, so wait two turns or the round's collections would read as the host's stalls.
    for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    seen.push(...gc.takeRecords());
    gc.disconnect();
    for (const entry of seen) into?.gcPauses.push([entry.startTime, entry.startTime + entry.duration]);
  }
}

interface Timed {
  readonly ns: number;
  readonly span: readonly [number, number];
}

async function timed(call: () => PromiseLike<unknown>): Promise<Timed> {
  const from = performance.now();
  const start = process.hrtime.bigint();
  await call();
  const ns = Number(process.hrtime.bigint() - start);
  return { ns, span: [from, performance.now()] };
}

/** A call this many times the floor's median call is a stall of the machine. */
export const STALL_FACTOR = 5;

export interface PairedRatio {
  /** Σ workload / Σ floor, each side without its `trimmed` slowest calls that had no GC in them. */
  readonly ratio: number;
  /** Σ workload / Σ floor over every call, stalls included (info). */
  readonly rawRatio: number;
  readonly floorMedianNs: number;
  readonly workloadMedianNs: number;
  readonly pairs: number;
  /** Calls left out of each side: the floor's stalls, the host's estimated count. */
  readonly trimmed: number;
  /** Calls over the stall limit with no GC pause in them, per side (info: the workload's own excess shows here). */
  readonly stalledWorkload: number;
  readonly stalledFloor: number;
  /** Calls over the stall limit that a GC pause explains: kept, on their side. */
  readonly gcWorkload: number;
  readonly gcFloor: number;
}

/**
 * The ratio of the two sides' total time, each side without as many of its slowest GC-free calls
 * as the floor had stalls (see the file's comment), and with every call (info).
 */
export function pairedRatio(pairs: CallPairs): PairedRatio {
  const floorMedianNs = median(pairs.floor);
  const limit = STALL_FACTOR * floorMedianNs;
  const collected = (span: readonly [number, number]): boolean => pairs.gcPauses.some(([from, to]) => from < span[1] && to > span[0]);
  const side = (times: readonly number[], spans: ReadonlyArray<readonly [number, number]>) => {
    const free: number[] = [];
    let total = 0;
    let stalled = 0;
    let gc = 0;
    times.forEach((ns, i) => {
      total += ns;
      const inGc = collected(spans[i] as readonly [number, number]);
      if (!inGc) free.push(ns);
      if (ns > limit) {
        if (inGc) gc += 1;
        else stalled += 1;
      }
    });
    return { total, stalled, gc, slowestFree: free.sort((a, b) => b - a) };
  };
  const workload = side(pairs.workload, pairs.workloadSpans);
  const floor = side(pairs.floor, pairs.floorSpans);
  const trimmed = floor.stalled;
  const dropped = (slowest: readonly number[]): number => slowest.slice(0, trimmed).reduce((sum, ns) => sum + ns, 0);
  return {
    ratio: (workload.total - dropped(workload.slowestFree)) / (floor.total - dropped(floor.slowestFree)),
    rawRatio: workload.total / floor.total,
    floorMedianNs,
    workloadMedianNs: median(pairs.workload),
    pairs: pairs.floor.length,
    trimmed,
    stalledWorkload: workload.stalled,
    stalledFloor: floor.stalled,
    gcWorkload: workload.gc,
    gcFloor: floor.gc,
  };
}
