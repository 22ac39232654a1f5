import { randomUUID } from 'node:crypto';
import { fencedError } from '../store/fenced-error.js';
import type { Lease, LeaseHolder } from '../store/run-store.js';
import { RunLeaseError, type RunFencedError } from '../store/run-store-errors.js';

/** The lease a run holds now: whoever took it last, until released or taken over. */
interface Held {
  owner: string;
  token: string;
  expiresAt: number;
}

/**
 * The lease of one run in memory. Fencing is by token, as in the other stores: an expired lease
 * nobody took over still writes (its holder was slow, not replaced); a released or taken-over one
 * writes nothing.
 */
export class MemoryLeaseSlot {
  private held: Held | undefined;

  constructor(
    readonly runId: string,
    private readonly now: () => number,
  ) {}

  /**
   * Takes the lease: a live lease of the same owner keeps its token (a renewal); another owner's
   * live lease is refused, unless `takeOver` (then a new token fences its holder).
   */
  acquire(owner: string, ttlMs: number, takeOver = false): Lease {
    const now = this.now();
    const held = this.held;
    const live = !takeOver && held !== undefined && held.expiresAt > now;
    if (live && held.owner !== owner) throw new RunLeaseError(this.runId, held.owner, held.expiresAt);
    const token = live ? held.token : randomUUID();
    this.held = { owner, token, expiresAt: now + ttlMs };
    return new MemoryLease(this, owner, token, this.held.expiresAt, ttlMs);
  }

  /** Throws the `RunFencedError` for `what` unless `fence` is the run's current lease. */
  check(fence: Lease | undefined, what: string): void {
    if (fence === undefined || fence.token === this.held?.token) return;
    throw this.fenced(fence, what);
  }

  fenced(fence: Lease, what: string): RunFencedError {
    return fencedError(this.runId, fence, what, this.held);
  }

  /** The new expiry, or undefined when `token` no longer holds the lease. */
  renew(token: string, ttlMs: number): number | undefined {
    if (this.held?.token !== token) return undefined;
    this.held.expiresAt = this.now() + ttlMs;
    return this.held.expiresAt;
  }

  release(token: string): void {
    if (this.held?.token === token) this.held = undefined;
  }

  holder(): LeaseHolder | undefined {
    if (this.held === undefined) return undefined;
    const { owner, expiresAt } = this.held;
    // A process of its own cannot have exited while this store is alive: alive or expired only.
    return { owner, expiresAt, state: expiresAt <= this.now() ? 'expired' : 'alive' };
  }
}

class MemoryLease implements Lease {
  constructor(
    private readonly slot: MemoryLeaseSlot,
    readonly owner: string,
    readonly token: string,
    private expiry: number,
    private readonly ttlMs: number,
  ) {}

  get runId(): string {
    return this.slot.runId;
  }

  get expiresAt(): number {
    return this.expiry;
  }

  async renew(): Promise<void> {
    const expiresAt = this.slot.renew(this.token, this.ttlMs);
    // A RunFencedError is a RunLeaseError, which is what a lost renewal rejects with.
    if (expiresAt === undefined) throw this.slot.fenced(this, 'a renewal of its lease');
    this.expiry = expiresAt;
  }

  async release(): Promise<void> {
    this.slot.release(this.token);
  }
}
