import { GroundswellError } from '../errors/groundswell-error.js';
import type { BudgetStanding } from '../types/budget.js';
import type { BudgetWaitingEvent } from '../types/events.js';
import type { WaitQueue } from './wait-queue.js';

/** Why a model request waits (see `BudgetWaitingEvent`). */
export type BudgetWaitReason = BudgetWaitingEvent['reason'];

/**
 * Thrown by a reservation that may wait instead of being refused: it names the queue to wait in.
 * `reserveOrRaise` waits there and tries again; nothing else sees it. The message says what it
 * waits for, should it ever reach a caller.
 */
export class BudgetWait extends GroundswellError {
  constructor(
    message: string,
    readonly queue: WaitQueue,
    readonly standing: BudgetStanding,
    readonly reason: BudgetWaitReason,
  ) {
    super(message);
  }
}
