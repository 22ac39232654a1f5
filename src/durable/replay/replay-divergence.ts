import { GroundswellError } from '../../errors/groundswell-error.js';

/** Where a replay first left its recording. */
export type DivergenceKind = 'call-changed' | 'call-added' | 'call-removed' | 'step-added' | 'step-removed' | 'step-order' | 'outcome';

/** One part of a request (or a run's outcome) that differs from the recording. */
export interface ChangedPart {
  readonly part: 'model' | 'system' | 'user' | 'schema' | 'tools' | 'mcps' | 'answer' | 'status' | 'result';
  readonly recorded: unknown;
  readonly current: unknown;
  /** A line diff, recorded lines as "- ", current as "+ ". */
  readonly diff: string;
}

/** The first difference between a replay and its recording. */
export interface ReplayDivergence {
  readonly kind: DivergenceKind;
  /** The durable key of the step or call: the same code with the same input gives the same keys. */
  readonly key: string;
  /** Where it is in the tree, as names from the root (`Research › ask › explainer`). */
  readonly path: string;
  readonly parts: readonly ChangedPart[];
  /** One paragraph a person reads first. */
  readonly summary: string;
}

/** Stops a replay at its first divergence; `replayRun` reports it rather than throwing. */
export class ReplayDivergenceError extends GroundswellError {
  constructor(
    readonly divergence: ReplayDivergence,
    message: string = divergence.summary,
  ) {
    super(message);
  }
}
