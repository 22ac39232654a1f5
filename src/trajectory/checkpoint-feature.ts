import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { TurnCall, TurnFeature, TurnFeatureContext, TurnRequest } from '../agent/turn-feature.js';
import { groundCheckpoint } from './grounding.js';
import { checkpointMode, groundingMode, type TrajectoryOptions } from '../agent/config/trajectory-config.js';
import { TrajectoryTracker } from './trajectory-tracker.js';
import { currentScope } from '../core/scope.js';
import { parentCheckpointAt } from './parent-checkpoint.js';

/**
 * Trajectory checkpoints (`trajectory.checkpoint`): observes every tool call, and before each
 * request puts the current checkpoint in as the last system block (it replaces the previous one
 * on every request, it never accumulates). A changed checkpoint is reported as an event; in shadow
 * mode nothing is injected.
 */
export function checkpointFeature(context: TurnFeatureContext<{ readonly trajectory?: TrajectoryOptions }>): TurnFeature | undefined {
  const options = context.config.trajectory;
  const mode = checkpointMode(options);
  if (mode === 'off') return undefined;
  // Called from inside another agent's run: no grounding pass of its own unless this agent asks.
  const nested = !context.fresh && parentCheckpointAt(currentScope()?.node) !== undefined;
  const grounding = nested && options?.grounding === undefined ? 'off' : groundingMode(options);
  const { secrets } = context;
  const tracker = new TrajectoryTracker(mode, grounding, context.goalAncestry.goal ?? context.prompt.user, (text) => secrets.text(text), options?.maxChars);
  return {
    name: 'trajectory',
    beforeRequest: (request) => checkpointBefore(tracker, request),
    afterToolCall({ turn, record, effect, target }) {
      tracker.record({
        turn,
        toolName: record.name,
        ...(effect !== undefined ? { effect } : {}),
        ...(target !== undefined ? { target } : {}),
        input: record.input,
        output: record.output,
        isError: record.isError,
        blocked: record.blockedReason !== undefined,
        ...(record.delegated ? { child: true } : {}),
        ...(record.outcome !== undefined ? { outcome: record.outcome } : {}),
      });
    },
    onCompaction: () => tracker.noteCompaction(),
    summaries: (maxTurn) => tracker.summaries(maxTurn),
  };
}

/** Synchronous unless a grounding pass is due: only that request pays for an await. */
function checkpointBefore(tracker: TrajectoryTracker, request: TurnRequest): Promise<void> | undefined {
  const update = tracker.beforeRequest(request.turn);
  if (update === undefined) return undefined;
  if (update.groundingDue) return grounded(tracker, request, update);
  report(request, update.checkpoint, update.changed, update.inject);
  return undefined;
}

type Update = NonNullable<ReturnType<TrajectoryTracker['beforeRequest']>>;

async function grounded(tracker: TrajectoryTracker, request: TurnRequest, update: Update): Promise<void> {
  const { call } = request;
  let { checkpoint, changed, inject } = update;
  // The tool-less grounding request: reserved on the call's budgets and booked like the call's own.
  const result = await groundCheckpoint((params) => request.send(params), call.plan.model, checkpoint, call.plan.userContent.slice(0, 2_000));
  // The model's own assessment may quote a secret it was shown: masked like every other field.
  const text = tracker.adoptGrounded(call.secrets.value(result.checkpoint), changed);
  const latest = tracker.latest ?? checkpoint;
  changed = changed || latest.revision !== checkpoint.revision || latest.groundingSource !== checkpoint.groundingSource;
  checkpoint = latest;
  if (inject !== '' || text !== '') inject = text;
  report(request, checkpoint, changed, inject);
}

function report(request: TurnRequest, checkpoint: Update['checkpoint'], changed: boolean, inject: string): void {
  const { call } = request;
  if (changed) {
    call.tree.emit({
      type: 'trajectoryCheckpoint',
      agentName: call.agentName,
      revision: checkpoint.revision,
      assessment: checkpoint.assessment,
      injected: inject !== '',
      checkpoint,
    });
  }
  if (inject !== '') request.systemBlocks.push(inject);
}

