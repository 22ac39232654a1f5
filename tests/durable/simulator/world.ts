import { FakeClock } from '../../support/fake-clock.js';
import { deferred, type Deferred } from '../../support/deferred.js';
import { CALL_FAULTS, faultAt, type FaultKind, type PlannedFault } from './faults.js';

/** A side effect of a step body, as the outside world saw it. */
export interface Effect {
  proc: number;
  step: string;
  seq: number;
}

/** A write the store acknowledged to a process: the code went on believing it kept. */
export interface Ack {
  proc: number;
  seq: number;
  value: unknown;
}

export const LEASE_MS = 1_000;
const NEVER = new Promise<never>(() => undefined);

/**
 * Everything one schedule shares: the clock every store and workflow reads, the fault plan and
 * where each count stands, which simulated processes are dead or paused, and what the outside
 * world saw (side effects, acknowledged writes, final statuses). One order of events (`seq`)
 * across processes makes "after" exact.
 */
export class World {
  readonly clock = new FakeClock({ tick: 1 });
  readonly counts = { call: 0, fs: 0, pg: 0 };
  readonly injected = new Map<FaultKind, number>();
  readonly effects: Effect[] = [];
  readonly stepAcks = new Map<string, Ack[]>();
  readonly callAcks = new Map<string, Ack[]>();
  /** Final statuses stores acknowledged (completed or failed), in order. */
  readonly finals: Array<{ status: string; result: unknown; proc: number }> = [];
  readonly notes: string[] = [];
  /** When each process sent the agent call's first request (the one whose answer asks for the refund). */
  readonly firstTurns: Array<{ proc: number; seq: number }> = [];
  /** When the refund's approval was sent: the run was stored waiting for it, with the call's turn kept. */
  approvalSentAt: number | undefined;
  /** When each simulated process started. */
  readonly startedAt = new Map<number, number>();
  /** The process whose synchronous store code runs right now (file operations are charged to it). */
  current: number | undefined;
  private seqNo = 0;
  private readonly dead = new Set<number>();
  private readonly paused = new Map<number, Deferred<void>>();
  private readonly wasPaused = new Set<number>();
  /** Step bodies each process has begun and not yet finished with its side effect. */
  private readonly inBody = new Map<number, Set<string>>();
  /** The step bodies a process was inside of when it was paused. */
  private readonly pausedInBody = new Map<number, ReadonlySet<string>>();

  constructor(readonly plan: readonly PlannedFault[]) {}

  seq(): number {
    this.seqNo += 1;
    return this.seqNo;
  }

  count(kind: FaultKind): void {
    this.injected.set(kind, (this.injected.get(kind) ?? 0) + 1);
  }

  isDead(proc: number): boolean {
    return this.dead.has(proc);
  }

  kill(proc: number): void {
    this.dead.add(proc);
    this.deaths.get(proc)?.resolve();
  }

  /** Resolves when `proc` dies (a killed process never answers again). */
  readonly deaths = new Map<number, Deferred<void>>();

  /** Resolves when `proc` is paused (the schedule then lets another process take the run over). */
  readonly pauses = new Map<number, Deferred<void>>();

  watch(proc: number): void {
    this.startedAt.set(proc, this.seq());
    this.deaths.set(proc, deferred());
    this.pauses.set(proc, deferred());
  }

  /** Pauses `proc`: each of its store calls and side effects waits until `resume(proc)`. */
  pause(proc: number): void {
    // A process is paused once: the schedule waits for the first pause only.
    if (this.paused.has(proc) || this.wasPaused.has(proc)) return;
    this.wasPaused.add(proc);
    this.pausedInBody.set(proc, new Set(this.inBody.get(proc)));
    this.paused.set(proc, deferred());
    this.pauses.get(proc)?.resolve();
  }

  resume(proc: number): void {
    const gate = this.paused.get(proc);
    this.paused.delete(proc);
    gate?.resolve();
  }

  /** What a frozen process does meanwhile: nothing, until it is continued (or forever, once dead). */
  async frozen(proc: number): Promise<void> {
    for (;;) {
      if (this.dead.has(proc)) return NEVER;
      const gate = this.paused.get(proc);
      if (gate === undefined) return;
      await gate.promise;
    }
  }

  never<T>(): Promise<T> {
    return NEVER as Promise<T>;
  }

  /** `proc` begins the body of step `step` (its side effect comes at the body's end). */
  enter(proc: number, step: string): void {
    const bodies = this.inBody.get(proc) ?? new Set<string>();
    bodies.add(step);
    this.inBody.set(proc, bodies);
  }

  /**
   * Whether `proc` was paused while inside the body of `step`. Such a body goes on when the process
   * does, as a stopped process's would: its side effect may come after another process redid the
   * step (no store write stands between them to be refused). The framework cannot stop user code
   * already running; the docs point to idempotency keys for it.
   */
  pausedInside(proc: number, step: string): boolean {
    return this.pausedInBody.get(proc)?.has(step) === true;
  }

  /** A side effect of step `step` in `proc` (waits while the process is frozen, as a real one would). */
  async effect(proc: number, step: string): Promise<void> {
    await this.frozen(proc);
    this.inBody.get(proc)?.delete(step);
    this.effects.push({ proc, step, seq: this.seq() });
  }

  /** The call fault planned for the next store or lease call, counted. */
  nextCallFault(): (typeof CALL_FAULTS)[number] | undefined {
    const at = this.counts.call;
    this.counts.call += 1;
    const kind = faultAt(this.plan, CALL_FAULTS, at);
    if (kind !== undefined) this.count(kind);
    return kind;
  }

  ackStep(key: string, proc: number, value: unknown): void {
    const list = this.stepAcks.get(key) ?? [];
    list.push({ proc, seq: this.seq(), value });
    this.stepAcks.set(key, list);
  }

  ackCall(key: string, proc: number, value: unknown): void {
    const list = this.callAcks.get(key) ?? [];
    list.push({ proc, seq: this.seq(), value });
    this.callAcks.set(key, list);
  }

  /** Moves every clock reader past the lease of any holder: a stopped process's lease lapses. */
  passLease(): void {
    this.clock.advance(LEASE_MS + 1);
  }
}
