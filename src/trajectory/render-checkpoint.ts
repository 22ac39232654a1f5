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
    const lines = [CHECKPOINT_HEADING, `Goal: ${oneLine(checkpoint.goal)}`];
    if (checkpoint.currentStep) lines.push(`Current step: ${oneLine(checkpoint.currentStep)}`);
    lines.push(`Assessment: ${oneLine(checkpoint.assessment)}`);
    if (checkpoint.situationAssessment) lines.push(`Reasoned situation: ${oneLine(checkpoint.situationAssessment)}`);
    if (checkpoint.completedWork.length > 0) {
      lines.push('Completed work:', ...checkpoint.completedWork.map((w) => `- ${oneLine(w)}`));
    }
    if (checkpoint.groundedFacts.length > 0) {
      lines.push('Grounded facts:');
      for (const fact of checkpoint.groundedFacts) {
        const stale = fact.freshness === 'fresh' ? '' : ` (${oneLine(fact.freshness)})`;
        lines.push(`- ${oneLine(fact.evidence)} ${oneLine(fact.statement)}${stale}`);
      }
    }
    for (const question of checkpoint.openQuestions) lines.push(`Open question: ${oneLine(question)}`);
    lines.push(`Required next action: ${oneLine(checkpoint.nextAction)}`);
    lines.push(`Success evidence: ${oneLine(checkpoint.successEvidence)}`);
    for (const item of checkpoint.doNotRepeat) lines.push(`Do not repeat: ${oneLine(item)}`);
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
      `Parent goal: ${oneLine(checkpoint.goal)}`,
      `Delegated scope: ${oneLine(delegatedScope)}`,
    ];
    if (constraint) lines.push(`Relevant constraint: ${oneLine(constraint)}`);
    lines.push(`Return with evidence: ${oneLine(checkpoint.successEvidence)}`);
    return lines.join('\n');
  } catch {
    return '';
  }
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
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
