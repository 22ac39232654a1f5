/**
 * Timing and memory helpers for the benchmarks: warm-up, N measured runs, median, forced GC
 * between runs (needs `node --expose-gc`), and a plain-text table printer.
 */
import { cpus } from 'node:os';
import { getHeapStatistics } from 'node:v8';

const gcFn = (globalThis as { gc?: () => void }).gc;

export const GC_AVAILABLE = typeof gcFn === 'function';

/** A full, forced collection (twice, so objects freed by the first pass's finalizers go too). */
export function forceGc(): void {
  if (gcFn === undefined) return;
  gcFn();
  gcFn();
}

export function heapUsed(): number {
  return process.memoryUsage().heapUsed;
}

export function heapLimit(): number {
  return getHeapStatistics().heap_size_limit;
}

export function now(): bigint {
  return process.hrtime.bigint();
}

export function elapsedNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const hi = sorted[mid] as number;
  return sorted.length % 2 === 1 ? hi : ((sorted[mid - 1] as number) + hi) / 2;
}

export interface MeasureOptions {
  /** Unmeasured runs first, to let the JIT settle (default 2). */
  warmup?: number;
  /** Measured runs (default DEFAULT_RUNS, never fewer than 5). */
  runs?: number;
  /**
   * Also measure retained heap: heapUsed after a forced GC with the run's result still referenced,
   * minus heapUsed after a forced GC just before the run.
   */
  retained?: boolean;
  /**
   * A full GC before each run (default true), so one variant's garbage is not collected on the
   * next one's time. Off for microsecond workloads: a forced full GC deoptimizes code whose
   * embedded maps it frees, and the following thousands of calls then measure re-compilation.
   */
  gcBetweenRuns?: boolean;
}

export interface Measurement {
  /** Wall time of each measured run, ns. */
  samples: number[];
  medianNs: number;
  minNs: number;
  maxNs: number;
  /** Per-run retained bytes (only with `retained: true`). */
  retainedSamples: number[];
  medianRetained: number;
}

export const DEFAULT_RUNS = 9;
export const DEFAULT_WARMUP = 2;

/**
 * Runs `run` warm-up + N times with a forced GC before each run (unless `gcBetweenRuns` is false) and times each with
 * `process.hrtime.bigint()`. The GC and the retained-heap probe are outside the timed span.
 * Whatever `run` resolves to is kept referenced until the retained-heap probe is done.
 */
export async function measure<T>(run: () => Promise<T> | T, options: MeasureOptions = {}): Promise<Measurement> {
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const runs = Math.max(5, options.runs ?? DEFAULT_RUNS);
  const samples: number[] = [];
  const retainedSamples: number[] = [];
  for (let i = 0; i < warmup + runs; i += 1) {
    const [ns, retained] = await once(run, options.retained === true, options.gcBetweenRuns ?? true);
    if (i < warmup) continue;
    samples.push(ns);
    if (options.retained) retainedSamples.push(retained);
  }
  return {
    samples,
    medianNs: median(samples),
    minNs: Math.min(...samples),
    maxNs: Math.max(...samples),
    retainedSamples,
    medianRetained: median(retainedSamples),
  };
}

/** Holds a run's result across the heap probe; a module-level object, so the store cannot be elided. */
export const holder: { value: unknown } = { value: undefined };

/**
 * One run in its own async frame. The result must not pass through a register of the caller's
 * loop: a suspended async function keeps its whole register file alive, so a stale temporary
 * there would retain the previous run's result and skew the next heap probe.
 */
async function once<T>(run: () => Promise<T> | T, probe: boolean, gc = true): Promise<[number, number]> {
  if (gc || probe) forceGc();
  const before = probe ? heapUsed() : 0;
  const start = now();
  holder.value = await run();
  const ns = elapsedNs(start);
  let retained = 0;
  if (probe) {
    forceGc();
    retained = heapUsed() - before;
  }
  holder.value = undefined;
  return [ns, retained];
}

/**
 * Like `measure` for several variants at once, interleaved: every round runs each variant once
 * (the order rotated round by round), so a load spike on this noisy machine hits all of them,
 * not one. Used for a workload and its floor, whose ratio is the target.
 */
export async function measureInterleaved(
  runs: readonly (() => Promise<unknown> | unknown)[],
  options: Omit<MeasureOptions, 'retained'> = {},
): Promise<Measurement[]> {
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const rounds = Math.max(5, options.runs ?? DEFAULT_RUNS);
  const samples = runs.map((): number[] => []);
  for (let round = 0; round < warmup + rounds; round += 1) {
    for (let k = 0; k < runs.length; k += 1) {
      const index = (round + k) % runs.length;
      const [ns] = await once(runs[index] as () => Promise<unknown> | unknown, false, options.gcBetweenRuns ?? true);
      if (round >= warmup) samples[index]?.push(ns);
    }
  }
  return samples.map((list) => ({
    samples: list,
    medianNs: median(list),
    minNs: Math.min(...list),
    maxNs: Math.max(...list),
    retainedSamples: [],
    medianRetained: Number.NaN,
  }));
}

// ---------------------------------------------------------------------------------------------
// Ratio targets: every workload records its ratio to its floor here; run.ts prints them together.

export interface RatioResult {
  workload: string;
  measurement: string;
  /** The measured ratio (workload / floor, or a flatness ratio). */
  ratio: number;
  /** The target: ratio ≤ limit. */
  limit: number;
  /** Why the gate could not be measured (no PostgreSQL, the workload threw): it counts as NOT RUN, never as a pass. */
  notRun?: string;
}

export const ratioResults: RatioResult[] = [];

/** Records a ratio against its target and returns the status cell ("PASS"/"MISS"). */
export function recordRatio(workload: string, measurement: string, ratio: number, limit: number): string {
  ratioResults.push({ workload, measurement, ratio, limit });
  return verdict(ratio, limit);
}

/** Records a gate that could not run, so it is counted rather than left out; returns "NOT RUN". */
export function recordNotRun(workload: string, measurement: string, limit: number, reason: string): string {
  ratioResults.push({ workload, measurement, ratio: Number.NaN, limit, notRun: reason });
  return 'NOT RUN';
}

/**
 * A recorded gate's status: NOT RUN, else PASS/MISS. A ratio that is not a number misses: NaN
 * crosses the child process boundary as JSON null, and `null <= limit` would read as a pass.
 */
export function gateStatus(result: RatioResult): 'PASS' | 'MISS' | 'NOT RUN' {
  if (typeof result.notRun === 'string') return 'NOT RUN';
  return typeof result.ratio === 'number' && Number.isFinite(result.ratio) && result.ratio <= result.limit ? 'PASS' : 'MISS';
}

// ---------------------------------------------------------------------------------------------
// Formatting

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function int(n: number): string {
  return intFmt.format(n);
}

export function fixed1(n: number): string {
  return oneFmt.format(n);
}

export function fixed2(n: number): string {
  return twoFmt.format(n);
}

export function fmtNs(ns: number): string {
  return `${ns < 100 ? fixed1(ns) : int(ns)} ns`;
}

/** Microseconds with one decimal below 100 µs (for per-call costs in the µs range). */
export function fmtUs(ns: number): string {
  const us = ns / 1000;
  return `${us < 100 ? fixed1(us) : int(us)} µs`;
}

export function fmtMs(ns: number): string {
  return `${fixed2(ns / 1e6)} ms`;
}

export function fmtBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= 1024 * 1024) return `${fixed1(bytes / (1024 * 1024))} MB`;
  if (abs >= 1024) return `${fixed1(bytes / 1024)} KB`;
  return `${int(bytes)} B`;
}

export function fmtRatio(value: number, baseline: number): string {
  return `${fixed1(value / baseline)}x`;
}

/** A ratio with two decimals, for ratios compared to a target. */
export function fmtX(ratio: number): string {
  return `${fixed2(ratio)}x`;
}

/** "PASS"/"MISS" for a ≤ target (absolute info cells use it too; only recorded gates set the exit code). */
export function verdict(value: number, limit: number): string {
  return value <= limit ? 'PASS' : 'MISS';
}

export type Align = 'left' | 'right';

/** A plain-text table: a header row, a rule, and the rows; every column padded to its widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], align?: readonly Align[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => {
        const w = widths[c] ?? 0;
        return (align?.[c] ?? (c === 0 ? 'left' : 'right')) === 'left' ? cell.padEnd(w) : cell.padStart(w);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

export function section(title: string): void {
  console.log(`\n${title}`);
}

export function environment(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return (
    `node ${process.version}, ${process.platform} ${process.arch}, ${cpus().length} CPUs (${cpu}), ` +
    `heap limit ${fmtBytes(heapLimit())}`
  );
}
