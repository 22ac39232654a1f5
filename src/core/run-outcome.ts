import type { GroundswellError } from '../errors/groundswell-error.js';

/**
 * How a workflow's last run ended, kept on the workflow so `resultOf`/`outcomeOf` can give a
 * task's caller each child's value after the task resolved to the children themselves.
 */
export type RunOutcome<T> =
  | { readonly status: 'fulfilled'; readonly value: T }
  | { readonly status: 'rejected'; readonly error: GroundswellError };
