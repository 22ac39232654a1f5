import { GroundswellError } from '../../errors/groundswell-error.js';

/**
 * A durable run stopped in this process without an outcome: its lease was taken over, or the
 * store kept failing (a full disk, a database outage) until the lease ran out. Nothing final was
 * stored, so the run is not `failed` or `cancelled`: it stays resumable, and whoever holds (or
 * next takes) its lease goes on from its last stored step. `cause` is what stopped it.
 */
export class RunInterruptedError extends GroundswellError {
  constructor(
    readonly runId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Run "${runId}" stopped in this process: ${reason}. Nothing final was stored; the run can be resumed.`, options);
  }
}
