import type { LoadedRun, RunStore } from 'groundswell/durable';
import { planFaults, type FaultKind, type OperationCounts, type PlannedFault } from './faults.js';
import { violations } from './invariants.js';
import { Rng } from './rng.js';
import { runChunks, type RunChunk } from 'groundswell/web';
import { REFUND_APPROVAL, simWorkflow, type SimLibrary } from './sim-workflow.js';
import { World } from './world.js';

/** A store kind as the simulator drives it. */
export interface StoreKit {
  readonly kind: 'journal' | 'postgres';
  /** The store process `proc` uses, with the schedule's faults wired in (files or connections). */
  open(proc: number, world: World): Promise<{ store: RunStore; close(): Promise<void> }>;
  /** A store without faults, to read what is kept. */
  clean(): Promise<{ store: RunStore; close(): Promise<void> }>;
  /** Wires the schedule's file faults (journal) for the schedule's length; returns the unwiring. */
  wire(world: World): () => void;
}

export interface ScheduleReport {
  seed: number;
  store: 'journal' | 'postgres';
  faults: PlannedFault[];
  injected: Map<FaultKind, number>;
  processes: number;
  violations: string[];
  notes: string[];
  counts: OperationCounts;
  /** How the schedule's processes ended (a paused one counted by how it ended after it continued). */
  outcomes: Map<Outcome['kind'], number>;
}

const MAX_PROCESSES = 15;
export type Outcome = { kind: 'completed' | 'suspended' | 'stopped' | 'dead' | 'paused' | 'finished' | 'busy' | 'error'; detail?: string };

/**
 * One schedule: the seed picks the faults; processes start, resume or signal the run one after
 * another (a paused one continues after the process that took its run over ends) until the run
 * completes; then the invariants are checked on what a clean store holds.
 */
export async function runSchedule(lib: SimLibrary, kit: StoreKit, seed: number, counts: OperationCounts, faultless = false): Promise<ScheduleReport> {
  const plan = faultless ? [] : planFaults(new Rng(seed), kit.kind, counts);
  const world = new World(plan);
  const runId = `sim-${kit.kind}-${seed}-${faultless ? 'base' : 'run'}`;
  const unwire = kit.wire(world);
  const closers: Array<() => Promise<void>> = [];
  const pausedProcs: number[] = [];
  const outcomes = new Map<Outcome['kind'], number>();
  let processes = 0;
  let finished = false;
  try {
    const paused: Array<Promise<Outcome>> = [];
    const settle = (proc: number, outcome: Outcome): void => {
      outcomes.set(outcome.kind, (outcomes.get(outcome.kind) ?? 0) + 1);
      if (outcome.kind === 'error') world.notes.push(`process ${proc}: ${outcome.detail ?? ''}`);
      if (outcome.kind === 'completed' || outcome.kind === 'finished') finished = true;
      // A process that died or stopped may still hold the lease: it lapses before the next one.
      if (outcome.kind === 'dead' || outcome.kind === 'stopped' || outcome.kind === 'busy' || outcome.kind === 'error') world.passLease();
    };
    for (let proc = 1; proc <= MAX_PROCESSES && !finished; proc += 1) {
      processes = proc;
      const started = await startProcess(lib, kit, world, proc, runId, closers);
      const outcome = await started.outcome;
      if (outcome.kind === 'paused') {
        // Its lease lapses while it is stopped; the next process takes the run over.
        world.passLease();
        paused.push(started.settled.then((late) => (settle(proc, late), late)));
        pausedProcs.push(proc);
        continue;
      }
      settle(proc, outcome);
      // The paused holders continue now, after another process worked on their run, and run
      // until they stop, die or finish before anything else happens.
      for (const held of pausedProcs.splice(0)) world.resume(held);
      for (const zombie of paused.splice(0)) await zombie;
    }
    for (const held of pausedProcs.splice(0)) world.resume(held);
    for (const zombie of paused.splice(0)) await zombie;
    const clean = await kit.clean();
    let loaded: LoadedRun | undefined;
    let stream: RunChunk[] | undefined;
    try {
      loaded = await clean.store.loadRun(runId);
      // The run's stream as a page reads it from the store (the run streams its text).
      if (loaded.run.status === 'completed') {
        stream = [];
        for await (const chunk of runChunks({ store: clean.store, runId }, { pollMs: 1 })) stream.push(chunk);
      }
    } catch (error) {
      world.notes.push(`loading the run failed: ${(error as Error).message}`);
    } finally {
      await clean.close();
    }
    const found = finished ? violations(world, loaded, stream) : [`the run did not complete in ${MAX_PROCESSES} processes`, ...violations(world, loaded, stream)];
    return { seed, store: kit.kind, faults: plan, injected: world.injected, processes, violations: found, notes: world.notes, counts: { ...world.counts }, outcomes };
  } finally {
    unwire();
    for (const close of closers) await close().catch(() => undefined);
  }
}

/** Starts process `proc` on the run: it starts it, signals it or resumes it, as the store says is due. */
async function startProcess(
  lib: SimLibrary,
  kit: StoreKit,
  world: World,
  proc: number,
  runId: string,
  closers: Array<() => Promise<void>>,
): Promise<{ outcome: Promise<Outcome>; settled: Promise<Outcome> }> {
  world.watch(proc);
  const { store, close } = await kit.open(proc, world);
  closers.push(close);
  const build = simWorkflow(lib, store, world, proc, runId);
  const workflows = { Simulated: build };
  const settled = (async (): Promise<Outcome> => {
    try {
      const clean = await kit.clean();
      let due: Due;
      try {
        due = await dueAction(clean.store, runId);
      } finally {
        await clean.close();
      }
      if (due === 'finished') return { kind: 'finished' };
      if (due === 'start') await build().run();
      else if (due === 'signal') await lib.gs.signal(runId, 'approve', { ok: true }, { store, workflows });
      else if (due === 'approve refund') {
        world.approvalSentAt ??= world.seq();
        await lib.gs.signal(runId, REFUND_APPROVAL, { approved: true }, { store, workflows });
      }
      else await lib.gs.resume(runId, { store, workflows });
      return { kind: 'completed' };
    } catch (error) {
      return classify(lib, error);
    }
  })();
  const dead = world.deaths.get(proc)?.promise.then((): Outcome => ({ kind: 'dead' })) as Promise<Outcome>;
  const paused = world.pauses.get(proc)?.promise.then((): Outcome => ({ kind: 'paused' })) as Promise<Outcome>;
  return { outcome: Promise.race([settled, dead, paused]), settled: Promise.race([settled, dead]) };
}

type Due = 'start' | 'signal' | 'approve refund' | 'resume' | 'finished';

async function dueAction(store: RunStore, runId: string): Promise<Due> {
  const run = await store.getRun(runId);
  if (run === undefined) return 'start';
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') return 'finished';
  if (run.status === 'suspended' && run.waitingFor?.name === REFUND_APPROVAL) {
    const { signals } = await store.loadRun(runId);
    if (!signals.some((signal) => signal.name === REFUND_APPROVAL)) return 'approve refund';
  }
  if (run.status === 'suspended' && run.waitingFor?.name === 'approve') {
    const { signals } = await store.loadRun(runId);
    if (!signals.some((signal) => signal.name === 'approve')) return 'signal';
  }
  return 'resume';
}

function classify(lib: SimLibrary, error: unknown): Outcome {
  if (lib.gs.isSuspension(error)) return { kind: 'suspended' };
  if (error instanceof lib.gs.RunInterruptedError) return { kind: 'stopped', detail: error.message };
  if (error instanceof lib.gs.RunFinishedError) return { kind: 'finished' };
  const name = (error as Error)?.name;
  if (name === 'RunLeaseError' || name === 'RunFencedError') return { kind: 'busy', detail: (error as Error).message };
  return { kind: 'error', detail: `${name}: ${(error as Error)?.message}` };
}
