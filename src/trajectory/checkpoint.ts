import { createHash } from 'node:crypto';
import type { TrajectoryAssessment, TrajectoryCheckpoint, VerifierOutcome } from '../types/trajectory.js';
import { canonicalJson } from '../cache/canonical-json.js';
import { nextId } from '../util/ids.js';
import { evidenceLabel, type Observation } from '../tools/observation.js';

export type { TrajectoryCheckpoint };

export interface AssessInput {
  readonly goal: string;
  readonly currentStep?: string;
  readonly observations: readonly Observation[];
  readonly turn: number;
  readonly trigger: string;
  /** The previous checkpoint of the run: its id is kept and its revision bumped on change. */
  readonly previous?: TrajectoryCheckpoint;
  /** How many of the newest observations become grounded facts (default 6). */
  readonly maxFacts?: number;
}

const BLOCK_REPEATS = 3;

/**
 * The deterministic assessment. Every claim (completed work, facts) carries an evidence label;
 * anything not backed by fresh evidence becomes an open question, never completed work.
 */
export function assessTrajectory(input: AssessInput): TrajectoryCheckpoint {
  const obs = input.observations;
  const completedWork: string[] = [];
  const openQuestions: string[] = [];
  const doNotRepeat: string[] = [];
  let assessment: TrajectoryAssessment = 'on_trajectory';
  let nextAction = 'Continue with the next step of the goal.';
  let successEvidence = 'A tool result that shows the goal met.';

  for (const o of obs) {
    if (o.kind === 'tool_result' && o.effect === 'mutate' && !o.fromCache) {
      completedWork.push(`${o.toolName}${o.target ? ` on ${o.target}` : ''} ${evidenceLabel(o)}`);
    }
  }

  const lastVerifyPass = lastIndex(obs, (o) => ranVerifier(o) && outcomeOf(o) === 'passed');
  const lastMutation = lastIndex(obs, (o) => o.effect === 'mutate' && o.kind === 'tool_result');
  const lastChild = lastIndex(obs, (o) => o.kind === 'child_result');

  // A mutation after the last passing verification (or with none at all) leaves verification due.
  if (lastMutation >= 0 && lastMutation > lastVerifyPass) {
    assessment = 'verification_due';
    const m = obs[lastMutation] as Observation;
    nextAction = `Run the verifier for ${m.target ?? m.toolName}.`;
    successEvidence = 'A passing verifier result after the last change.';
  }

  // A child's result is something to check, not work this run can claim.
  if (lastChild >= 0 && lastChild > lastVerifyPass) {
    const c = obs[lastChild] as Observation;
    assessment = 'verification_due';
    openQuestions.push(`The result of ${c.toolName} ${evidenceLabel(c)} has not been verified.`);
    nextAction = `Verify what ${c.toolName} reported before relying on it.`;
    successEvidence = 'A verifier or a fresh read that confirms the child result.';
  }

  // The newest verifier run says what to do next: whatever it said, running it again unchanged is
  // not the next step (that is the loop checkpoints exist to stop).
  const lastVerify = lastIndex(obs, ranVerifier);
  const check = obs[lastVerify];
  if (check !== undefined && outcomeOf(check) === 'unknown') {
    openQuestions.push(`The outcome of ${check.toolName} ${evidenceLabel(check)} is unknown: its result does not show whether the check passed.`);
  }
  if (check !== undefined && assessment === 'verification_due' && lastVerify > Math.max(lastMutation, lastChild)) {
    if (outcomeOf(check) === 'failed') {
      nextAction = `Fix what ${check.toolName} reported ${evidenceLabel(check)}, then run it again.`;
      successEvidence = 'A passing verifier result after the fix.';
    } else {
      // Not known to have failed: it is not a failure, and not a pass either.
      assessment = 'on_trajectory';
      nextAction = `Read the result of ${check.toolName} ${evidenceLabel(check)} and decide whether the check passed; if it did not, fix what it reports. Do not run it again unchanged.`;
      successEvidence = 'A verifier result whose outcome is clear, or a fix for what it reported.';
    }
  }

  // Failed mutations: the prerequisite is a fresh read of the target, not another payload.
  const failing = failingMutationTargets(obs);
  for (const [target, failures] of failing) {
    const last = failures[failures.length - 1] as Observation;
    // Only a read after the LAST failure shows the current state the next attempt must build on.
    const freshRead = obs.some(
      (o) => o.effect === 'read' && o.target === target && o.kind === 'tool_result' && !o.fromCache && o.seq > last.seq,
    );
    if (freshRead) continue;
    assessment = 'recovery_required';
    openQuestions.push(`The current content of ${target} has not been freshly read.`);
    nextAction = `Read ${target} fresh, then make a targeted change based on what it contains.`;
    successEvidence = `A successful targeted change to ${target}, or evidence of what blocks it.`;
    const payloads = new Set(failures.map((f) => f.inputHash));
    if (failures.length > 1 && payloads.size > 1) {
      doNotRepeat.push(`${last.toolName} on ${target} with another changed payload ${evidenceLabel(last)}.`);
    } else {
      doNotRepeat.push(`${last.toolName} on ${target} with the same input ${evidenceLabel(last)}.`);
    }
  }

  // The same refused or failing call again and again, with nothing else tried: blocked.
  const tail = obs.slice(-BLOCK_REPEATS);
  if (
    tail.length === BLOCK_REPEATS &&
    tail.every((o) => o.kind === 'synthetic_block' || o.kind === 'tool_failure') &&
    new Set(tail.map((o) => `${o.toolName}|${o.target ?? ''}|${o.inputHash}`)).size === 1
  ) {
    const o = tail[tail.length - 1] as Observation;
    assessment = 'blocked';
    nextAction = `Stop calling ${o.toolName}; report what blocks it or choose a different approach.`;
    successEvidence = 'A different action that changes the situation, or a clear report of the blocker.';
    doNotRepeat.push(`${o.toolName}${o.target ? ` on ${o.target}` : ''} with the same input ${evidenceLabel(o)}.`);
  }

  for (const o of obs) {
    if (o.fromCache && o.effect === 'read' && o.target) {
      openQuestions.push(`${o.target} was read from a cache or replay ${evidenceLabel(o)}: not fresh evidence.`);
    }
  }

  const checkpoint: TrajectoryCheckpoint = {
    schemaVersion: 1,
    id: input.previous?.id ?? nextId('trajectory'),
    revision: input.previous?.revision ?? 1,
    turn: input.turn,
    trigger: input.trigger,
    assessment,
    goal: input.goal,
    ...(input.currentStep !== undefined ? { currentStep: input.currentStep } : {}),
    groundingSource: 'deterministic',
    completedWork: unique(completedWork),
    groundedFacts: facts(obs, input.maxFacts ?? 6),
    openQuestions: unique(openQuestions),
    nextAction,
    successEvidence,
    doNotRepeat: unique(doNotRepeat),
  };
  if (input.previous !== undefined && checkpointFingerprint(input.previous) !== checkpointFingerprint(checkpoint)) {
    checkpoint.revision = input.previous.revision + 1;
  }
  return checkpoint;
}

/** What the checkpoint says, without its id, revision, turn and trigger: equal means no news. */
export function checkpointFingerprint(checkpoint: TrajectoryCheckpoint): string {
  const { id: _id, revision: _revision, turn: _turn, trigger: _trigger, ...content } = checkpoint;
  return createHash('sha256').update(canonicalJson(content)).digest('hex').slice(0, 16);
}

function failingMutationTargets(obs: readonly Observation[]): Map<string, Observation[]> {
  const byTarget = new Map<string, Observation[]>();
  for (const o of obs) {
    if (o.effect !== 'mutate' || o.target === undefined) continue;
    if (o.kind === 'tool_result') byTarget.delete(o.target); // a success clears earlier failures
    else if (o.kind === 'tool_failure' || o.kind === 'synthetic_block') {
      const list = byTarget.get(o.target) ?? [];
      list.push(o);
      byTarget.set(o.target, list);
    }
  }
  return byTarget;
}

function facts(obs: readonly Observation[], max: number): TrajectoryCheckpoint['groundedFacts'] {
  const out: TrajectoryCheckpoint['groundedFacts'] = [];
  const newest = max <= 0 ? [] : obs.slice(-max);
  for (const o of newest) {
    const laterMutation = o.target !== undefined && obs.some((m) => m.seq > o.seq && m.effect === 'mutate' && m.target === o.target && m.kind === 'tool_result');
    const freshness = o.fromCache ? 'unknown' : laterMutation && o.effect === 'read' ? 'stale' : 'fresh';
    const subject = `${o.toolName}${o.target ? ` on ${o.target}` : ''}`;
    if (ranVerifier(o)) {
      // The outcome is declared in words and as a field, so neither the model nor a consumer guesses it from the summary.
      const outcome = outcomeOf(o);
      const said = outcome === 'unknown' ? 'outcome unknown' : outcome;
      out.push({ statement: `${subject}: verifier ${said}: ${o.summary}`, evidence: evidenceLabel(o), freshness, outcome });
    } else {
      out.push({ statement: `${subject}: ${o.summary}`, evidence: evidenceLabel(o), freshness });
    }
  }
  return out;
}

/** A verify tool that ran: its result or its error (a refused call never ran). */
function ranVerifier(o: Observation): boolean {
  return o.effect === 'verify' && (o.kind === 'tool_result' || o.kind === 'tool_failure');
}

/** An error is a failure whatever the observation says; a result with no outcome is unknown. */
function outcomeOf(o: Observation): VerifierOutcome {
  return o.kind === 'tool_failure' ? 'failed' : (o.outcome ?? 'unknown');
}

function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (test(items[i] as T)) return i;
  return -1;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
