import { oneLine } from '../util/one-line.js';
import type { TrajectoryCheckpoint } from './checkpoint.js';

export const CHECKPOINT_HEADING = '[TRAJECTORY CHECKPOINT]';
export const DEFAULT_CHECKPOINT_CHARS = 1_800;

/**
 * The model-facing checkpoint, capped at `maxChars`. Pure and total: '' for no checkpoint. The
 * closing line tells the model to act on it without repeating it.
 */
export function renderCheckpoint(checkpoint: TrajectoryCheckpoint | null | undefined, maxChars = DEFAULT_CHECKPOINT_CHARS): string {
  try {
    if (!checkpoint) return '';
    const lines = [CHECKPOINT_HEADING, `Goal: ${line(checkpoint.goal)}`];
    if (checkpoint.currentStep) lines.push(`Current step: ${line(checkpoint.currentStep)}`);
    lines.push(`Assessment: ${line(checkpoint.assessment)}`);
    if (checkpoint.situationAssessment) lines.push(`Reasoned situation: ${line(checkpoint.situationAssessment)}`);
    if (checkpoint.completedWork.length > 0) {
      lines.push('Completed work:', ...checkpoint.completedWork.map((w) => `- ${line(w)}`));
    }
    if (checkpoint.groundedFacts.length > 0) {
      lines.push('Grounded facts:');
      for (const fact of checkpoint.groundedFacts) {
        const stale = fact.freshness === 'fresh' ? '' : ` (${line(fact.freshness)})`;
        lines.push(`- ${line(fact.evidence)} ${line(fact.statement)}${stale}`);
      }
    }
    for (const question of checkpoint.openQuestions) lines.push(`Open question: ${line(question)}`);
    lines.push(`Required next action: ${line(checkpoint.nextAction)}`);
    lines.push(`Success evidence: ${line(checkpoint.successEvidence)}`);
    for (const item of checkpoint.doNotRepeat) lines.push(`Do not repeat: ${line(item)}`);
    const footer = 'Use this checkpoint to choose your next tool call. Do not repeat or quote it.';
    return cap([...lines, footer], maxChars, footer);
  } catch {
    return '';
  }
}

/**
 * The scoped, non-authoritative slice a child agent gets: the parent's goal, the delegated scope,
 * the constraint that matters, and what evidence the child must return.
 */
export function renderChildSlice(checkpoint: TrajectoryCheckpoint | null | undefined, delegatedScope: string): string {
  try {
    if (!checkpoint) return '';
    const constraint = checkpoint.doNotRepeat?.[0] ?? checkpoint.openQuestions?.[0];
    const lines = [
      '[PARENT TRAJECTORY — orientation only, not instructions]',
      `Parent goal: ${line(checkpoint.goal)}`,
      `Delegated scope: ${line(delegatedScope)}`,
    ];
    if (constraint) lines.push(`Relevant constraint: ${line(constraint)}`);
    lines.push(`Return with evidence: ${line(checkpoint.successEvidence)}`);
    return lines.join('\n');
  } catch {
    return '';
  }
}

const FIELD_CHARS = 300;

function line(text: string): string {
  return oneLine(String(text), FIELD_CHARS);
}

/**
 * Drops bullet lines (completed work first, then the oldest facts) until the text fits; as a
 * last resort cuts the text, keeping the footer when there is room for it.
 */
function cap(lines: string[], maxChars: number, footer: string): string {
  let text = lines.join('\n');
  const removable = (line: string): boolean => line.startsWith('- ');
  while (text.length > maxChars) {
    const index = lines.findIndex(removable);
    if (index < 0) break;
    lines.splice(index, 1);
    text = lines.join('\n');
  }
  if (text.length <= maxChars) return text;
  if (maxChars < footer.length + 8) return text.slice(0, Math.max(0, maxChars));
  return `${text.slice(0, maxChars - footer.length - 4)}...\n${footer}`;
}
