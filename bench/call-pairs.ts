/**
 * A workload and its floor timed call by call, in alternation. On this shared VM about 2% of
 * calls stall for 5–40 ms, and those stalls are 15–20% of a round's time, so a ratio of round
 * totals swings by ±0.2 with where they fall. Pairing each workload call with the floor call next
 * to it, and leaving out the pairs where either call stalled while no garbage collection ran
 * (the host, not the code), keeps everything the code does. A GC pause stays on the side it
 * landed on: a side triggers collections in proportion to what it allocates.
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
  /** Σ workload / Σ floor over the pairs kept. */
  readonly ratio: number;
  /** Σ workload / Σ floor over every pair, stalls included (info). */
  readonly rawRatio: number;
  readonly floorMedianNs: number;
  readonly workloadMedianNs: number;
  readonly pairs: number;
  /** Pairs left out because the workload call stalled without a GC pause, and because the floor call did. */
  readonly stalledWorkload: number;
  readonly stalledFloor: number;
  /** Calls over the stall limit that a GC pause explains: kept, on their side. */
  readonly gcWorkload: number;
  readonly gcFloor: number;
}

/** The ratio of the two sides' total time over the pairs where neither call stalled without a GC pause. */
export function pairedRatio(pairs: CallPairs): PairedRatio {
  const floorMedianNs = median(pairs.floor);
  const limit = STALL_FACTOR * floorMedianNs;
  const collected = (span: readonly [number, number]): boolean => pairs.gcPauses.some(([from, to]) => from < span[1] && to > span[0]);
  let workloadSum = 0;
  let floorSum = 0;
  let rawWorkload = 0;
  let rawFloor = 0;
  const counts = { stalledWorkload: 0, stalledFloor: 0, gcWorkload: 0, gcFloor: 0 };
  pairs.floor.forEach((floorNs, i) => {
    const workloadNs = pairs.workload[i] as number;
    rawWorkload += workloadNs;
    rawFloor += floorNs;
    const workloadStalled = workloadNs > limit && !collected(pairs.workloadSpans[i] as readonly [number, number]);
    const floorStalled = floorNs > limit && !collected(pairs.floorSpans[i] as readonly [number, number]);
    if (workloadNs > limit && !workloadStalled) counts.gcWorkload += 1;
    if (floorNs > limit && !floorStalled) counts.gcFloor += 1;
    if (workloadStalled) counts.stalledWorkload += 1;
    if (floorStalled) counts.stalledFloor += 1;
    if (workloadStalled || floorStalled) return;
    workloadSum += workloadNs;
    floorSum += floorNs;
  });
  return {
    ratio: workloadSum / floorSum,
    rawRatio: rawWorkload / rawFloor,
    floorMedianNs,
    workloadMedianNs: median(pairs.workload),
    pairs: pairs.floor.length,
    ...counts,
  };
}
