/** Base of every error groundswell throws, so `instanceof GroundswellError` catches them all. */
export class GroundswellError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The caller used the API wrongly (a decorator on the wrong member, a cycle in the tree, an
 * observer on a non-root). Never retried: running it again cannot help.
 */
export class UsageError extends GroundswellError {}
