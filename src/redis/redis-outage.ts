import { CacheStoreError } from '../cache/cache-store-error.js';
import { errorMessage } from '../util/describe.js';

/**
 * After Redis failed to answer (a timeout, a lost or refused connection), the store skips it for
 * `backoffMs`: an operation in that window fails at once instead of waiting `timeoutMs` again, so
 * a frozen server costs one timeout per window rather than one per call. The window is measured
 * by the store's clock; the first operation after it tries Redis again.
 */
export class RedisOutage {
  private until = Number.NEGATIVE_INFINITY;
  private cause: unknown;

  constructor(
    private readonly backoffMs: number,
    private readonly clock: { now(): number },
  ) {}

  /** Throws a `CacheStoreError` while the window after a failure is open. */
  check(command: string): void {
    if (this.backoffMs === 0) return;
    const left = this.until - this.clock.now();
    if (!(left > 0)) return;
    throw new CacheStoreError(
      `Redis ${command} failed: not tried, Redis is skipped for ${Math.ceil(left)} ms more after it failed (${errorMessage(this.cause)}).`,
      { cause: this.cause },
    );
  }

  /** Opens the window: Redis did not answer `cause`. */
  failed(cause: unknown): void {
    this.cause = cause;
    this.until = this.clock.now() + this.backoffMs;
  }
}
