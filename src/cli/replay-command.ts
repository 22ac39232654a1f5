import { formatDivergence } from '../durable/replay/format-divergence.js';
import { exportRecording, writeRecording } from '../durable/replay/recording.js';
import { replayRun } from '../durable/replay/replay-run.js';
import { forkRun } from '../durable/replay/fork-run.js';
import { isSuspension } from '../errors/predicates.js';
import type { RunStore } from '../durable/store/run-store.js';
import { inertText } from '../util/inert-text.js';
import { CliUsageError, type CliIo } from './cli-io.js';
import { loadWorkflows } from './load-workflows.js';

/** `groundswell replay <recording> --workflows <module>`: 0 when the run is the same, 1 at a divergence. */
export async function replayCommand(file: string | undefined, workflowsPath: string | undefined, io: CliIo): Promise<number> {
  if (file === undefined || file === '') throw new CliUsageError('Missing the recording file (written by `groundswell runs export`).');
  const workflows = await loadWorkflows(workflowsPath);
  const replay = await replayRun(file, { workflows });
  if (replay.same) {
    io.out(`Same as recorded: every step and agent call matched; result ${inertText(JSON.stringify(replay.result) ?? 'undefined')}.`);
    return 0;
  }
  io.err(inertText(formatDivergence(replay.divergence)));
  return 1;
}

/** `groundswell runs export <runId> [--out <file>]`: the run as one recording (stdout without --out). */
export async function exportCommand(store: RunStore, runId: string, out: string | undefined, io: CliIo): Promise<number> {
  const recording = await exportRecording(store, runId);
  if (out === undefined) {
    io.out(JSON.stringify(recording));
    return 0;
  }
  await writeRecording(out, recording);
  io.out(`Run ${inertText(runId)} recorded to ${inertText(out)}: ${recording.steps.length} steps, ${recording.calls.length} agent calls.`);
  return 0;
}

/** `groundswell runs fork <runId> --at <step> --workflows <module>`: a new run from the stored one, live from the step. */
export async function forkCommand(store: RunStore, runId: string, at: string | undefined, workflowsPath: string | undefined, io: CliIo): Promise<number> {
  if (at === undefined || at === '') throw new CliUsageError("Missing --at <step>: the step to fork at, by its path (e.g. 'Pipeline › summarize') or key.");
  const workflows = await loadWorkflows(workflowsPath);
  const recording = await exportRecording(store, runId);
  try {
    const fork = await forkRun(recording, { at, workflows, store });
    io.out(`Forked run ${inertText(runId)} at ${inertText(at)} into run ${inertText(fork.runId)}, which completed: ${inertText(JSON.stringify(fork.result) ?? 'undefined')}`);
  } catch (error) {
    if (!isSuspension(error)) throw error;
    io.out(`Forked run ${inertText(runId)} at ${inertText(at)}; the fork is suspended: it waits for signal "${inertText(error.waitingFor)}".`);
  }
  return 0;
}
