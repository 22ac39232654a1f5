import { lazySchema } from '../util/lazy-schema.js';
import { CallTree } from '../agent/call-tree.js';
import { StructuredOutputError } from '../agent/agent-errors.js';
import { markFresh } from '../agent/fresh-start.js';
import { createPrompt, type Prompt } from '../agent/prompt.js';
import { errorMessage } from '../util/describe.js';
import { serializeError } from '../util/serialize-error.js';
import type { ReflectionLevel } from '../agent/config/reflection-config.js';
import { ReflectionFailedError } from './reflection-failed-error.js';
import type { Reflector, Revision } from '../agent/revision.js';
import { chargeTo } from '../agent/enclosing-budgets.js';
import type { BudgetLedger } from '../budgets/budget-ledger.js';

const NO_BUDGETS: readonly BudgetLedger[] = Object.freeze([]);

/** What the reflecting model is shown about the failed attempt. */
export interface FailedAttempt {
  readonly level: ReflectionLevel;
  readonly attempt: number;
  /** The task as it was asked (user message, data, system) or the failed step's name. */
  readonly task: string;
  readonly error: unknown;
}

const RevisionSchema = lazySchema((z) => z.object({
  critique: z.string().describe('What went wrong in the failed attempt, and why, in two or three sentences.'),
  revisedUser: z
    .string()
    .nullable()
    .describe('A clearer version of the request for the next attempt, or null to keep the original.'),
  guidance: z.string().describe('Concrete instructions for the next attempt that avoid the same failure.'),
}));

const REFLECTOR_SYSTEM = [
  'You review an attempt that failed and plan the next one.',
  'Read the task and the failure. Name the cause plainly; do not apologise or repeat the task.',
  'Then give guidance the next attempt can follow directly, and rewrite the request only if its',
  'wording caused the failure. Answer in the requested JSON shape.',
].join(' ');

/**
 * One reflection pass: a `reflection` node (with `reflectionStart`/`reflectionEnd`) under the
 * current node, and inside it the reflecting agent's own call. A pass that fails is recorded
 * and rethrown with the original failure as its cause. `budgets` are those of the failed call:
 * the pass counts against them outside a workflow too, where no tree puts them above it.
 */
export async function reflect(reflector: Reflector, failed: FailedAttempt, budgets: readonly BudgetLedger[] = NO_BUDGETS): Promise<Revision> {
  const tree = CallTree.open('reflection', `reflect on attempt ${failed.attempt} (${failed.level})`);
  tree.emit({ type: 'reflectionStart', level: failed.level, attempt: failed.attempt, error: serializeError(failed.error) });
  try {
    // Fresh whoever reflects (also a user's own agent): the failed task below is all it gets.
    const prompt = chargeTo(markFresh(createPrompt({
      name: 'reflection',
      system: REFLECTOR_SYSTEM,
      user: `The attempt below failed. Explain why and say what to change.\n\n${failed.task}\n\n<failure>\n${describeFailure(failed.error)}\n</failure>`,
      responseFormat: RevisionSchema,
      enableReflection: false,
      enableCache: false,
      tools: [],
      mcps: [],
    })), budgets);
    const answer = await tree.run(() => reflector.prompt(prompt));
    const revision: Revision = { critique: answer.critique, user: answer.revisedUser, guidance: answer.guidance };
    tree.finish('completed');
    tree.emit({ type: 'reflectionEnd', level: failed.level, attempt: failed.attempt, status: 'completed', critique: revision.critique, revision: { user: revision.user, guidance: revision.guidance } });
    return revision;
  } catch (error) {
    tree.finish('failed');
    tree.emit({ type: 'reflectionEnd', level: failed.level, attempt: failed.attempt, status: 'failed', error: serializeError(error) });
    throw new ReflectionFailedError(failed.level, failed.attempt, failed.error, error);
  }
}


function describeFailure(error: unknown): string {
  const lines = [errorMessage(error)];
  if (error instanceof StructuredOutputError) {
    for (const issue of error.issues) lines.push(`- ${issue.path || '(root)'}: ${issue.message}`);
    if (typeof error.raw === 'string') lines.push(`The answer was: ${error.raw.slice(0, 2_000)}`);
  }
  return lines.join('\n');
}
