import { GroundswellError } from '../errors/groundswell-error.js';

/**
 * A read-only judge tool was asked for a path that resolves outside its project root (by `..`, by
 * an absolute path, or through a symlink). Thrown, not returned, so the agent loop reports it to the
 * model as an `is_error` tool result and the judge can correct itself.
 */
export class PathOutsideRootError extends GroundswellError {
  readonly requested: string;

  constructor(requested: string, reason: string) {
    super(`Refused: "${requested}" ${reason}; the judge can only read inside the project root.`);
    this.requested = requested;
  }
}

/** A read-only judge tool got input it cannot serve (a missing file, a bad regex, a directory where a file was expected). */
export class ReadOnlyToolError extends GroundswellError {}

/**
 * The judge's answer does not end in the required `VERDICT:` / `missing:` pair. Callers treat this
 * as a judge failure, never as an accept or a reject the judge did not clearly give.
 */
export class JudgeVerdictError extends GroundswellError {
  /** The judge's full answer, kept so a log line or debugger can show what went wrong. */
  readonly answer: string;

  constructor(message: string, answer: string) {
    super(message);
    this.answer = answer;
  }
}
