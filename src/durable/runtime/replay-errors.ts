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

/**
 * `signal()` to a suspended run under a name it does not wait for (a mistyped name, most often):
 * nothing was stored. `ahead: true` stores a signal meant for a wait the run has not reached yet.
 */
export class SignalNameError extends UsageError {
  constructor(
    message: string,
    /** The signal the run waits for. */
    readonly waitingFor: string,
    /** The waited name when the sent one is a near miss of it, else undefined. */
    readonly suggestion: string | undefined,
  ) {
    super(message);
  }
}

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
