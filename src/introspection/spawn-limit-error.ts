import { IntrospectionError } from './introspection-error.js';

/** Which limit of `introspectionTools({ limits })` refused a spawn. */
export type SpawnLimitName = 'maxDepth' | 'maxSpawnsPerRun';

/** A spawn request went past a limit; nothing was created or run. */
export class SpawnLimitError extends IntrospectionError {
  constructor(
    message: string,
    readonly limit: SpawnLimitName,
    readonly max: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
