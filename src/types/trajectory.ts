export type TrajectoryAssessment = 'on_trajectory' | 'recovery_required' | 'verification_due' | 'blocked';

/**
 * How a `verify` tool's run came out. `unknown` means its result could not be read with
 * confidence: an open question for the model, never a failure.
 */
export type VerifierOutcome = 'passed' | 'failed' | 'unknown';

/** One claim of a checkpoint and the evidence label it rests on. */
export interface GroundedFact {
  statement: string;
  evidence: string;
  freshness: 'fresh' | 'stale' | 'unknown';
  /** For the result of a `verify` tool: how it came out. */
  outcome?: VerifierOutcome;
}

/** The current, evidence-bound account of where an agent run stands (schema version 1). */
export interface TrajectoryCheckpoint {
  schemaVersion: 1;
  id: string;
  revision: number;
  turn: number;
  trigger: string;
  assessment: TrajectoryAssessment;
  goal: string;
  currentStep?: string;
  situationAssessment?: string;
  groundingSource?: 'model' | 'deterministic';
  groundingEvidenceRefs?: string[];
  completedWork: string[];
  groundedFacts: GroundedFact[];
  openQuestions: string[];
  nextAction: string;
  successEvidence: string;
  doNotRepeat: string[];
}
