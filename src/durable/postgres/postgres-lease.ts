import type { Lease } from '../store/run-store.js';
import { RunLeaseError } from '../store/run-store-errors.js';

/** How a lease talks to its table; the store provides it. */
export interface LeaseQueries {
  /** Sets the expiry if `token` still holds the lease; false when it was taken over. */
  renew(token: string, expiresAt: number): Promise<boolean>;
  release(token: string): Promise<void>;
  /** The current holder, for the error when the lease was lost. */
  holder(): Promise<{ owner: string | undefined; expiresAt: number | undefined }>;
}

/** A lease held in the run's row (`lease_owner`, `lease_token`, `lease_expires_at`). */
export class PostgresLease implements Lease {
  constructor(
    readonly runId: string,
    readonly owner: string,
    readonly token: string,
    private expiry: number,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly queries: LeaseQueries,
  ) {}

  get expiresAt(): number {
    return this.expiry;
  }

  async renew(): Promise<void> {
    const expiresAt = this.now() + this.ttlMs;
    if (!(await this.queries.renew(this.token, expiresAt))) {
      const { owner, expiresAt: theirs } = await this.queries.holder();
      throw new RunLeaseError(
        this.runId,
        owner,
        theirs,
        `The lease of run "${this.runId}" held by "${this.owner}" was lost (it expired and was taken over${owner === undefined ? ' or released' : ` by "${owner}"`}).`,
      );
    }
    this.expiry = expiresAt;
  }

  async release(): Promise<void> {
    await this.queries.release(this.token);
  }
}
