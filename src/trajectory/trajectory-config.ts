import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';

/** `off`: nothing. `shadow`: events only. `adaptive`: injected when it has news. `always`: every request. */
export type CheckpointMode = 'off' | 'shadow' | 'adaptive' | 'always';

export interface TrajectoryOptions {
  checkpoint?: CheckpointMode;
  /** Cap of the rendered checkpoint in characters (default 1,800). */
  maxChars?: number;
}

const MODES: readonly CheckpointMode[] = ['off', 'shadow', 'adaptive', 'always'];

/** The mode from the agent config, else `GROUNDSWELL_TRAJECTORY_CHECKPOINT`, else `off`. */
export function checkpointMode(options: TrajectoryOptions | undefined, env: NodeJS.ProcessEnv = process.env): CheckpointMode {
  const mode = options?.checkpoint ?? env['GROUNDSWELL_TRAJECTORY_CHECKPOINT'] ?? 'off';
  if (!MODES.includes(mode as CheckpointMode)) {
    throw new UsageError(`Trajectory checkpoint mode must be one of ${MODES.join(', ')}, got ${describeValue(mode)}.`);
  }
  return mode as CheckpointMode;
}
