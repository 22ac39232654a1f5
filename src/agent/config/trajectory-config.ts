import { UsageError } from '../../errors/groundswell-error.js';
import { describeValue } from '../../util/describe.js';

/** `initial`: before the first main request. `adaptive`: also after material changes. */
export type GroundingMode = 'off' | 'initial' | 'adaptive';

/** How older turns leave the context: dropped with a note, or replaced by a summary of their tool calls. */
export type CompactionStrategy = 'drop' | 'summarize';

export interface ContextBudget {
  /** Compact when the conversation's JSON exceeds this many characters. */
  maxChars: number;
  strategy?: CompactionStrategy;
  /** The newest assistant/tool-result turns always kept (default 2). */
  keepTurns?: number;
}

/** `off`: nothing. `shadow`: events only. `adaptive`: injected when it has news. `always`: every request. */
export type CheckpointMode = 'off' | 'shadow' | 'adaptive' | 'always';

export interface TrajectoryOptions {
  checkpoint?: CheckpointMode;
  /** Model grounding pass: `initial` before the first request, `adaptive` also after material changes. */
  grounding?: GroundingMode;
  /** Cap of the rendered checkpoint in characters (default 1,800). */
  maxChars?: number;
  /** Keep long tool loops within a budget by compacting older turns (works in every mode). */
  contextBudget?: ContextBudget;
}

const MODES: readonly CheckpointMode[] = ['off', 'shadow', 'adaptive', 'always'];
const GROUNDING_MODES: readonly GroundingMode[] = ['off', 'initial', 'adaptive'];

/** The grounding mode from the agent config, else `GROUNDSWELL_TRAJECTORY_GROUNDING`, else `off`. */
export function groundingMode(options: TrajectoryOptions | undefined, env: NodeJS.ProcessEnv = process.env): GroundingMode {
  const mode = options?.grounding ?? env['GROUNDSWELL_TRAJECTORY_GROUNDING'] ?? 'off';
  if (!GROUNDING_MODES.includes(mode as GroundingMode)) {
    throw new UsageError(`Trajectory grounding mode must be one of ${GROUNDING_MODES.join(', ')}, got ${describeValue(mode)}.`);
  }
  return mode as GroundingMode;
}

/**
 * The mode from the agent config, else `GROUNDSWELL_TRAJECTORY_CHECKPOINT`, else `off`. (The rest of
 * the options is checked with the agent config.)
 */
export function checkpointMode(options: TrajectoryOptions | undefined, env: NodeJS.ProcessEnv = process.env): CheckpointMode {
  const mode = options?.checkpoint ?? env['GROUNDSWELL_TRAJECTORY_CHECKPOINT'] ?? 'off';
  if (!MODES.includes(mode as CheckpointMode)) {
    throw new UsageError(`Trajectory checkpoint mode must be one of ${MODES.join(', ')}, got ${describeValue(mode)}.`);
  }
  return mode as CheckpointMode;
}
