import { RunStoreError } from '../store/run-store-errors.js';
import { connectionLoss } from './pg-connection-errors.js';
import type { PgResultLike } from './pg-like.js';

/**
 * What a write that is not safe to send twice left, read back after its connection was lost
 * with the statement maybe sent: its result (it committed), `absent` (it provably did not, so it
 * may be sent again) or `unknown`.
 */
export type ReadBack = { readonly committed: PgResultLike } | 'absent' | 'unknown';

/**
 * When one statement may be sent a second time after its connection failed (decision 0068).
 * One per call: `sentAgainAfterLoss` reports what happened to that call.
 */
export class Resend {
  /**
   * Set when the statement was sent again after a loss that may have delivered the first send:
   * a key that send wrote then reads as taken, so the caller reads back whose record it holds.
   */
  sentAgainAfterLoss = false;

  private constructor(
    /** Sending it twice leaves what sending it once leaves. */
    readonly repeatable: boolean,
    readonly readBack: (() => Promise<ReadBack>) | undefined,
  ) {}

  /** Reads, upserts, inserts of a key that do nothing on a conflict, conditional updates: sent again after any loss. */
  static repeatable(): Resend {
    return new Resend(true, undefined);
  }

  /**
   * A write a second send would repeat (a batch of events, a signal): sent again only when the
   * first provably never reached the server. Otherwise `readBack` decides; without one, or when
   * it cannot tell, the call is a `RunStoreError` saying the write may or may not be stored.
   */
  static once(readBack?: () => Promise<ReadBack>): Resend {
    return new Resend(false, readBack);
  }
}

/**
 * `attempt()`, and at most once more on a connection failure where `resend` allows it. A
 * connection failure that is not sent again is a `RunStoreError` naming `what`, the driver's
 * error as its cause; any other error is thrown as it is.
 */
export async function sendWithResend(attempt: () => Promise<PgResultLike>, resend: Resend, what: string): Promise<PgResultLike> {
  let failure: unknown;
  try {
    return await attempt();
  } catch (error) {
    failure = error;
  }
  const loss = connectionLoss(failure);
  if (loss === undefined) throw failure;
  if (loss === 'maybe-sent') {
    if (resend.repeatable) resend.sentAgainAfterLoss = true;
    else {
      const found = resend.readBack === undefined ? 'unknown' : await resend.readBack().catch((): ReadBack => 'unknown');
      if (typeof found === 'object') return found.committed;
      if (found === 'unknown') throw lostInFlight(what, failure);
    }
  }
  // One turn of the event loop first: connections the server closed meanwhile (all of them, in a
  // restart) are seen closed and dropped by the pool instead of being handed out again.
  await new Promise<void>((resume) => setImmediate(resume));
  try {
    return await attempt();
  } catch (error) {
    const again = connectionLoss(error);
    if (again === undefined) throw error;
    if (again === 'maybe-sent' && !resend.repeatable) throw lostInFlight(what, error);
    throw new RunStoreError(`${what} failed: the connection to PostgreSQL failed, and again on a second try (${messageOf(error)}).`, { cause: error });
  }
}

/** A write whose connection was lost after it may have been sent, and whose outcome is not known. */
function lostInFlight(what: string, cause: unknown): RunStoreError {
  return new RunStoreError(
    `The connection to PostgreSQL was lost while ${what} was in flight (${messageOf(cause)}): it may or may not have been stored, and was not sent again ` +
      'because a second copy would be stored twice. A resume reads what the store holds.',
    { cause },
  );
}

/** The transaction form of `lostInFlight`: lost while COMMIT was in flight. */
export function lostAtCommit(what: string, cause: unknown): RunStoreError {
  return new RunStoreError(`The connection to PostgreSQL was lost while ${what} was committing (${messageOf(cause)}): it may or may not have been committed.`, {
    cause,
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
