import { createHash } from 'node:crypto';
import { assessTrajectory, checkpointFingerprint, type TrajectoryCheckpoint } from './checkpoint.js';
import type { CheckpointMode } from '../agent/config/trajectory-config.js';
import type { GroundingMode } from '../agent/config/trajectory-config.js';
import { evidenceLabel, type Observation, type ToolEffect } from '../tools/observation.js';
import { DEFAULT_CHECKPOINT_CHARS, renderCheckpoint } from './render-checkpoint.js';
import { readRunnerOutput } from '../tools/runner-output.js';
import { decideVerifierOutcome } from '../tools/verifier-outcome.js';
import type { VerifierOutcome } from '../types/trajectory.js';

const MAX_OBSERVATIONS = 200;
/** In adaptive grounding, a pass at least every this many tool calls even without material changes. */
const GROUNDING_CADENCE = 8;
const SUMMARY_CHARS = 200;

/** What one tool call left behind, as the tool loop reports it. */
export interface ToolCallFact {
  readonly turn: number;
  readonly toolName: string;
  readonly effect?: ToolEffect;
  readonly target?: string;
  readonly input: unknown;
  readonly output: string;
  readonly isError: boolean;
  readonly blocked: boolean;
  readonly child?: boolean;
  /** For a `verify` tool: its outcome as the tool loop decided it (else read from `output`). */
  readonly outcome?: VerifierOutcome;
}

/**
 * The trajectory of one agent call: bounded, sanitised observations and the current checkpoint,
 * recomputed before each model request. Only a changed checkpoint is news.
 */
export class TrajectoryTracker {
  private readonly observations: Observation[] = [];
  private seq = 0;
  private current: TrajectoryCheckpoint | undefined;
  private lastTrigger = 'task start';

  private lastAssessment: string | undefined;
  private groundedAtSeq = 0;
  private materialChange = false;

  private readonly goal: string;

  constructor(
    private readonly mode: CheckpointMode,
    private readonly grounding: GroundingMode,
    goal: string,
    private readonly mask: (text: string) => string,
    private readonly maxChars = DEFAULT_CHECKPOINT_CHARS,
  ) {
    // The goal travels in events and exports: masked and bounded like every other field.
    const masked = mask(goal).replace(/\s+/g, ' ').trim();
    this.goal = masked.length > 300 ? `${masked.slice(0, 297)}...` : masked;
  }

  get latest(): TrajectoryCheckpoint | undefined {
    return this.current;
  }

  record(fact: ToolCallFact): void {
    this.seq += 1;
    const kind = fact.child ? 'child_result' : fact.blocked ? 'synthetic_block' : fact.isError ? 'tool_failure' : 'tool_result';
    // A refused verifier never ran: it has no outcome.
    const ran = fact.effect === 'verify' && !fact.blocked;
    const outcome = ran ? (fact.outcome ?? decideVerifierOutcome(fact.output, fact.isError)) : undefined;
    const observation: Observation = {
      turn: fact.turn,
      seq: this.seq,
      kind,
      toolName: fact.toolName,
      ...(fact.effect !== undefined ? { effect: fact.effect } : {}),
      ...(fact.target !== undefined ? { target: this.mask(fact.target) } : {}),
      inputHash: hash(JSON.stringify(fact.input) ?? ''),
      outputHash: hash(fact.output),
      summary: fact.effect === 'verify' ? this.verifierSummary(fact.output) : this.summarise(fact.output),
      ...(outcome !== undefined ? { outcome } : {}),
    };
    this.observations.push(observation);
    if (this.observations.length > MAX_OBSERVATIONS) this.observations.shift();
    if (kind !== 'tool_result') this.materialChange = true;
    this.lastTrigger = kind === 'tool_result' ? (fact.effect === 'mutate' ? 'mutation' : fact.effect === 'verify' ? 'verifier result' : 'tool result') : kind.replace('_', ' ');
  }

  /**
   * The checkpoint before the request of `turn`: returns it with `changed` when its content
   * differs from the last one, and the text to inject (empty when the mode says not to).
   */
  beforeRequest(turn: number): { checkpoint: TrajectoryCheckpoint; changed: boolean; inject: string; groundingDue: boolean } | undefined {
    if (this.mode === 'off') return undefined;
    const initial = turn === 1 && this.grounding !== 'off';
    if (this.observations.length === 0 && !initial) return undefined;
    const previous = this.current;
    let checkpoint = assessTrajectory({
      goal: this.goal,
      observations: this.observations,
      turn,
      trigger: this.lastTrigger,
      ...(previous ? { previous } : {}),
    });
    // A model situation assessment stays until the next grounding pass replaces it.
    if (previous?.groundingSource === 'model' && previous.situationAssessment !== undefined) {
      checkpoint = { ...checkpoint, situationAssessment: previous.situationAssessment, groundingSource: 'model', groundingEvidenceRefs: previous.groundingEvidenceRefs ?? [] };
    }
    const changed = previous === undefined || checkpointFingerprint(previous) !== checkpointFingerprint(checkpoint);
    const directionChanged = this.lastAssessment !== undefined && this.lastAssessment !== checkpoint.assessment;
    // Cadence counts total tool calls (across retries of the call), so re-engaging cannot reset it.
    const cadenceDue = this.grounding === 'adaptive' && this.seq - this.groundedAtSeq >= GROUNDING_CADENCE;
    const groundingDue = initial || (this.grounding === 'adaptive' && (this.materialChange || directionChanged || cadenceDue));
    if (groundingDue) this.groundedAtSeq = this.seq;
    this.materialChange = false;
    this.lastAssessment = checkpoint.assessment;
    this.current = checkpoint;
    const inject =
      this.mode === 'always' || (this.mode === 'adaptive' && (changed || checkpoint.assessment !== 'on_trajectory'))
        ? renderCheckpoint(checkpoint, this.maxChars)
        : '';
    return { checkpoint, changed, inject, groundingDue };
  }

  /**
   * Replaces the current checkpoint with its grounded version; returns the text to inject now.
   * `alreadyNew`: the checkpoint was not reported yet, so grounding it needs no further revision.
   */
  adoptGrounded(grounded: TrajectoryCheckpoint, alreadyNew: boolean): string {
    const previous = this.current;
    const bump = !alreadyNew && previous !== undefined && checkpointFingerprint(previous) !== checkpointFingerprint(grounded);
    const checkpoint = bump && previous !== undefined ? { ...grounded, revision: previous.revision + 1 } : grounded;
    this.current = checkpoint;
    return this.mode === 'shadow' ? '' : renderCheckpoint(checkpoint, this.maxChars);
  }

  /** One line per observed tool call, with its evidence label: what a compaction summary keeps. */
  summaries(maxTurn: number): string[] {
    return this.observations
      .filter((o) => o.turn <= maxTurn)
      .map((o) => `${evidenceLabel(o)} ${o.toolName}${o.target ? ` on ${o.target}` : ''}: ${o.summary}`);
  }

  /** Compaction is a material change: the next adaptive request is grounded again. */
  noteCompaction(): void {
    this.materialChange = true;
    this.lastTrigger = 'compaction';
  }

  /**
   * A verifier's evidence is its summary line (`Tests  1 failed | 2 passed (3)`), not the start of
   * a long log. The line is taken from the masked output, so masking sees the text as it was.
   */
  private verifierSummary(output: string): string {
    const line = readRunnerOutput(this.mask(output)).line;
    return line === undefined ? this.summarise(output) : this.summarise(line);
  }

  private summarise(output: string): string {
    // Binary or huge content is described, never copied.
    // eslint-disable-next-line no-control-regex
    const binary = /[\u0000-\u0008\u000e-\u001f]/.test(output.slice(0, 1_000));
    // Mask before flattening: a multi-line secret only matches in its original form.
    const text = binary ? `<binary content, ${output.length} chars>` : this.mask(output).replace(/\s+/g, ' ').trim();
    return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 3)}...` : text;
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
