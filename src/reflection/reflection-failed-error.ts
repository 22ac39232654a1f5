import { GroundswellError } from '../errors/groundswell-error.js';
import { errorMessage } from '../util/describe.js';
import type { ReflectionLevel } from '../agent/config/reflection-config.js';

/** A reflection pass itself failed. `original` is the failure it was reflecting on; `cause` is why it failed. */
export class ReflectionFailedError extends GroundswellError {
  constructor(
    readonly level: ReflectionLevel,
    readonly attempt: number,
    readonly original: unknown,
    cause: unknown,
  ) {
    super(
      `Reflection (${level} level) on attempt ${attempt} failed: ${errorMessage(cause)}. ` +
        `The failure it was reflecting on: ${errorMessage(original)}`,
      { cause },
    );
  }
}
