import type { Lease } from './run-store.js';
import { RunFencedError } from './run-store-errors.js';

/** The error for a write refused because `fence` is no longer the run's lease; `holder` is who holds it now, if anyone. */
export function fencedError(runId: string, fence: Lease, what: string, holder?: { owner: string | undefined; expiresAt: number | undefined }): RunFencedError {
  const now = holder?.owner === undefined ? 'it was released or taken over' : `it was taken over by "${holder.owner}"`;
  return new RunFencedError(
    runId,
    holder?.owner,
    holder?.expiresAt,
    `Run "${runId}": ${what} was refused because the lease held by "${fence.owner}" is no longer the run's lease (${now}). ` +
      'Nothing was written; the holder of the lease goes on with the run, and this process must stop working on it.',
  );
}
