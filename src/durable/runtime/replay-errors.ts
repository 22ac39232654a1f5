import { GroundswellError, UsageError } from '../../errors/groundswell-error.js';

/** A resumed run reached a step or agent call whose code or input differs from the stored one. */
export class ReplayMismatchError extends GroundswellError {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

/** `resume()` or `signal()` of a run that has ended (completed, failed or cancelled). */
export class RunFinishedError extends UsageError {}

/** `signal()` with a value the waiting step's schema refuses: nothing was stored. */
export class SignalValueError extends UsageError {}

/** A `waitFor` whose timeout passed before its signal came. */
export class WaitTimeoutError extends GroundswellError {
  constructor(
    readonly signalName: string,
    readonly timeoutAt: number,
  ) {
    super(`No signal "${signalName}" came before ${new Date(timeoutAt).toISOString()}; the wait timed out.`);
  }
}

/** A step's outcome as stored, rebuilt for a replay (the original error object is gone). */
export class ReplayedStepError extends GroundswellError {
  constructor(
    message: string,
    readonly originalName: string,
  ) {
    super(message);
  }
}
