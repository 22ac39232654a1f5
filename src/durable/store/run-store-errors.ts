import { GroundswellError } from '../../errors/groundswell-error.js';

/** Base of every error a run store throws. */
export class RunStoreError extends GroundswellError {}

/** The run id is not in the store. */
export class RunNotFoundError extends RunStoreError {
  constructor(
    readonly runId: string,
    options?: { cause?: unknown },
  ) {
    super(`Run "${runId}" is not in the store.`, options);
  }
}

/** `createRun` with an id the store holds already. */
export class RunExistsError extends RunStoreError {
  constructor(
    readonly runId: string,
    options?: { cause?: unknown },
  ) {
    super(`Run "${runId}" exists already; a run id is used once.`, options);
  }
}

/** Another owner holds the run's lease (or took it over from this one). */
export class RunLeaseError extends RunStoreError {
  constructor(
    readonly runId: string,
    readonly holder: string | undefined,
    readonly expiresAt: number | undefined,
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(
      message ??
        `Run "${runId}" is leased by "${holder ?? 'unknown'}" until ${expiresAt === undefined ? 'an unknown time' : new Date(expiresAt).toISOString()}; ` +
          'another process is resuming it.',
      options,
    );
  }
}

/**
 * A write made under a lease that is no longer the run's current one (it expired and another
 * process took the run over, or it was released): nothing was written. The process that holds
 * the run now goes on with it; this one must stop working on it.
 */
export class RunFencedError extends RunLeaseError {}

/** Stored data is damaged where it cannot be a torn last write: refused, never read wrongly. */
export class RunStoreCorruptError extends RunStoreError {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${message}`, options);
  }
}

/** A value JSON cannot hold exactly (a function, a cycle, NaN, a Date, a class instance...). */
export class RunValueError extends RunStoreError {}
