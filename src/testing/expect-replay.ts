import { formatDivergence } from '../durable/replay/format-divergence.js';
import type { Recording } from '../durable/replay/recording.js';
import { ReplayDivergenceError } from '../durable/replay/replay-divergence.js';
import { replayRun } from '../durable/replay/replay-run.js';
import type { WorkflowFactory } from '../durable/runtime/resume.js';

/**
 * A recorded run as a regression test, in one line: replays `recording` (a file or a
 * `Recording`) against the current code with the network closed, and throws a
 * `ReplayDivergenceError` whose message shows the first divergence and its diff.
 */
export async function expectReplay(recording: Recording | string, workflows: Readonly<Record<string, WorkflowFactory>>): Promise<void> {
  const replay = await replayRun(recording, { workflows });
  if (!replay.same) throw new ReplayDivergenceError(replay.divergence, formatDivergence(replay.divergence));
}
