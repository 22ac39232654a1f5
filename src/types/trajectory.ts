export type TrajectoryAssessment = 'on_trajectory' | 'recovery_required' | 'verification_due' | 'blocked';

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
  groundedFacts: Array<{ statement: string; evidence: string; freshness: 'fresh' | 'stale' | 'unknown' }>;
  openQuestions: string[];
  nextAction: string;
  successEvidence: string;
  doNotRepeat: string[];
}
