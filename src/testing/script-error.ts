import { GroundswellError } from '../errors/groundswell-error.js';

/**
 * A scripted model's script and the calls it saw disagree: steps were left unused, a call came
 * after the script ran out, a responder threw, or a stream step met a non-streaming request.
 * Raised by `ScriptedModel.assertComplete()`, so a test fails where it checks the script instead
 * of passing with a half-run conversation.
 */
export class ScriptError extends GroundswellError {
  /** Labels of the steps no request consumed, in script order (`#3 text("Done")`). */
  readonly unusedSteps: readonly string[];
  /** One message per request the script could not answer as written. */
  readonly failures: readonly string[];

  constructor(
    message: string,
    details: { unusedSteps: readonly string[]; failures: readonly string[]; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.unusedSteps = details.unusedSteps;
    this.failures = details.failures;
  }
}
