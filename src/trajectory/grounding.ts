import type { GroundingMode } from '../agent/config/trajectory-config.js';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { lazySchema } from '../util/lazy-schema.js';
import { loadedZod, loadZod } from '../util/load-zod.js';
import { outputFormat } from '../agent/structured-output.js';
import type { TrajectoryCheckpoint } from '../types/trajectory.js';
import { BudgetExceededError } from '../budgets/budget-exceeded-error.js';
import { isSuspension } from '../errors/predicates.js';
import { isInstance } from '../util/describe.js';
import { renderCheckpoint } from './render-checkpoint.js';


const GroundingAnswer = lazySchema((z) => z.object({
  situationAssessment: z.string().describe('Two or three sentences: where the work stands and what matters next.'),
  evidenceRefs: z.array(z.string()).describe('The evidence labels, exactly as supplied, that the assessment rests on.'),
}));

const GROUNDING_SYSTEM = [
  'You orient an agent before its next step. Using only the evidence below, state plainly where',
  'the work stands and what the next action must achieve. Cite the evidence labels you rely on,',
  'exactly as written. Do not invent facts or labels, and do not plan beyond the next action.',
].join(' ');

export interface GroundingResult {
  readonly checkpoint: TrajectoryCheckpoint;
}

/**
 * The tool-less grounding request. The answer must cite at least one supplied label and no
 * other; otherwise — or when the model is unavailable — the deterministic checkpoint stands,
 * labelled `groundingSource: 'deterministic'`. Throws only what `send` throws for a budget: its
 * refusal, or the durable run suspending to wait for a raise.
 */
export async function groundCheckpoint(
  send: (request: MessageCreateParamsNonStreaming) => Promise<Message>,
  model: string,
  checkpoint: TrajectoryCheckpoint,
  task: string,
): Promise<GroundingResult> {
  const labels = suppliedLabels(checkpoint);
  // The fallback carries no situation text: an earlier model assessment must not be relabelled.
  const { situationAssessment: _old, groundingEvidenceRefs: _oldRefs, ...rest } = checkpoint;
  const deterministic: TrajectoryCheckpoint = { ...rest, groundingSource: 'deterministic' };
  try {
    if (loadedZod() === undefined) await loadZod();
    const response = await send({
        model,
        max_tokens: 512,
        system: GROUNDING_SYSTEM,
        output_config: { format: outputFormat(GroundingAnswer) },
        messages: [
          {
            role: 'user',
            content: `[task] ${task}\n\n${renderCheckpoint(checkpoint)}\n\nEvidence labels you may cite: ${labels.join(', ')}`,
          },
        ],
      });
    const text = response.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const parsed = GroundingAnswer.safeParse(JSON.parse(text));
    if (!parsed.success) return { checkpoint: deterministic };
    const refs = parsed.data.evidenceRefs.map((ref) => ref.trim());
    const valid = refs.length > 0 && refs.every((ref) => labels.includes(ref));
    if (!valid) return { checkpoint: deterministic };
    return {
      checkpoint: {
        ...checkpoint,
        situationAssessment: parsed.data.situationAssessment.replace(/\s+/g, ' ').trim().slice(0, 600),
        groundingSource: 'model',
        groundingEvidenceRefs: refs,
      },
    };
  } catch (error) {
    // The call's budgets decide for the call: a refused grounding request ends it, unsent.
    if (isInstance(error, BudgetExceededError) || isSuspension(error)) throw error;
    return { checkpoint: deterministic };
  }
}

/** The labels the grounding request may cite: the task, and every evidence label in the checkpoint. */
function suppliedLabels(checkpoint: TrajectoryCheckpoint): string[] {
  const labels = new Set<string>(['[task]']);
  for (const fact of checkpoint.groundedFacts) labels.add(fact.evidence);
  for (const line of [...checkpoint.completedWork, ...checkpoint.doNotRepeat, ...checkpoint.openQuestions]) {
    for (const match of line.matchAll(/\[turn \d+\/[a-z_]+\]/g)) labels.add(match[0]);
  }
  return [...labels];
}
