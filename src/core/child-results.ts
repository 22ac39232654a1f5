import type { GroundswellError } from '../errors/groundswell-error.js';

// The shapes behind the public `WorkflowResult`, `WorkflowResults` and `ChildOutcome`
// (child-outcome.ts), over any workflow type: the fan-out code and the context use these, so they
// need not import the `Workflow` class (decision 0030).

/** What `run()` of `W` resolves to. */
export type RunResult<W> = W extends { run(...args: never[]): Promise<infer T> } ? T : unknown;

/** The run results of a list (or tuple) of workflows, position by position. */
export type RunResults<W extends readonly unknown[]> = { -readonly [K in keyof W]: RunResult<W[K]> };

/** How one child of a fan-out ended, with the child itself. */
export type SettledChild<W> =
  | { readonly status: 'fulfilled'; readonly workflow: W; readonly value: RunResult<W> }
  | { readonly status: 'rejected'; readonly workflow: W; readonly error: GroundswellError };
