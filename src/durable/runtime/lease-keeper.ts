import { errorMessage } from '../../util/describe.js';
import type { Lease } from '../store/run-store.js';
import { RunLeaseError, RunNotFoundError, RunStoreCorruptError } from '../store/run-store-errors.js';
import { RunInterruptedError } from './run-interrupted-error.js';

const FIRST_RETRY_MS = 100;

/** When a lease was last known good: the moment its renewal was sent, on two clocks. */
interface Since {
  wall: number;
  mono: number;
}

/**
 * Keeps a run's lease while this process works on the run, and tells when it may no longer act.
 *
 * - It renews every third of the lease. A renewal refused because another process took the run
 *   over loses the lease at once. Any other failure (a disk full for a second, a database that
 *   refuses connections) is the store's trouble, not a lost lease: it is retried with backoff
 *   until the lease would really have expired, and only then is the lease given up.
 * - `beforeWork()` is asked before each step's body: the body runs at once while the lease is
 *   known to hold for another third of its length, else only after a renewal succeeds. Both the
 *   wall clock (the workflow's clock) and the monotonic one must agree: a suspended laptop stops
 *   the monotonic clock, and a wall clock can jump.
 */
export class LeaseKeeper {
  private since: Since;
  private lost: RunInterruptedError | undefined;
  private renewing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private lastError: unknown;

  constructor(
    private readonly lease: Lease,
    private readonly ttlMs: number,
    private readonly wall: { now(): number },
    acquiredSince: Since,
    private readonly onLost: (error: RunInterruptedError) => void,
  ) {
    this.since = acquiredSince;
    this.schedule(ttlMs / 3);
  }

  /** The two clocks, read now: pass it to the constructor from just before the lease was asked for. */
  static now(wall: { now(): number }): Since {
    return { wall: wall.now(), mono: performance.now() };
  }

  /** Why the lease was given up, once it was. */
  get lostError(): RunInterruptedError | undefined {
    return this.lost;
  }

  /** Undefined when work may start now; else a promise that settles once it may (or rejects: lost). */
  beforeWork(): Promise<void> | undefined {
    if (this.lost !== undefined) return Promise.reject(this.lost);
    if (this.remaining(LeaseKeeper.now(this.wall)) > this.ttlMs / 3) return undefined;
    return this.renewUntilSure();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** How long the lease surely holds from `now`: the smaller reading of the two clocks. */
  private remaining(now: Since): number {
    return Math.min(this.since.wall + this.ttlMs - now.wall, this.since.mono + this.ttlMs - now.mono);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.renewUntilSure().catch(() => undefined);
    }, delayMs);
    this.timer.unref();
  }

  private async renewUntilSure(): Promise<void> {
    this.renewing ??= this.renewLoop().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renewLoop(): Promise<void> {
    let delay = FIRST_RETRY_MS;
    for (;;) {
      if (this.lost !== undefined) throw this.lost;
      if (this.stopped) return;
      const sent = LeaseKeeper.now(this.wall);
      try {
        await this.lease.renew();
        this.since = sent;
        this.lastError = undefined;
        this.schedule(this.ttlMs / 3);
        return;
      } catch (error) {
        if (this.stopped) return;
        if (isLost(error)) throw this.giveUp(`its lease was taken over or lost (${errorMessage(error)})`, error);
        this.lastError = error;
      }
      // The store's own trouble: try again until the lease would have run out anyway.
      const left = this.remaining(LeaseKeeper.now(this.wall));
      if (left <= 0) {
        throw this.giveUp(`its lease could not be renewed before it expired (the store kept failing: ${errorMessage(this.lastError)})`, this.lastError);
      }
      await sleep(Math.min(delay, left, this.ttlMs / 6));
      delay *= 2;
    }
  }

  private giveUp(reason: string, cause: unknown): RunInterruptedError {
    if (this.lost === undefined) {
      this.lost = new RunInterruptedError(this.lease.runId, reason, { cause });
      this.stop();
      this.onLost(this.lost);
    }
    return this.lost;
  }
}

/** A renewal failure that means another process may hold the run (not a store's passing trouble). */
function isLost(error: unknown): boolean {
  return error instanceof RunLeaseError || error instanceof RunNotFoundError || error instanceof RunStoreCorruptError;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(1, ms)).unref());
}
