import { GroundswellError } from '../../errors/groundswell-error.js';

// Fixed, not the class's name: a bundler may rename the class, and the launcher reads this back.
const NAME = 'DbosChildFailedError';

/**
 * How a child that failed on its worker ends its DBOS run: its error (the cause) with its trail,
 * so the launcher still grafts what the child did and counts what it spent against its budgets.
 * DBOS records it as the child's error; the launcher throws the cause, as DBOS revived it.
 */
export class DbosChildFailedError extends GroundswellError {
  override readonly name = NAME;
  /** The child's `RunTrail` as JSON text (DBOS keeps an error's own enumerable properties). */
  readonly trail: string;

  constructor(name: string, workflowID: string, trail: string, cause: unknown) {
    super(`Child workflow "${name}" (${workflowID}) failed on its worker: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.trail = trail;
  }
}

/** The trail and cause of a child's failure as the launcher gets it from DBOS, or undefined for any other error. */
export function childFailure(error: unknown): { readonly trail: string; readonly cause: unknown } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, trail } = error as { name?: unknown; trail?: unknown };
  if (name !== NAME || typeof trail !== 'string') return undefined;
  return { trail, cause: (error as { cause?: unknown }).cause };
}
