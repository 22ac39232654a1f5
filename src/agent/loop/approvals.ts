import type { ToolUseBlock } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ZodType } from 'zod';
import { journalOf } from '../../core/run-journal.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { loadedZodOrFail } from '../../util/load-zod.js';
import { callJournalOf } from '../call-journal.js';
import type { PausedTurn } from '../paused-turn.js';
import type { PromptCall } from '../prompt-call.js';
import type { ToolHandler } from '../toolset.js';

/** What a person answers to a tool call that waits for approval. */
export interface ApprovalAnswer {
  readonly approved: boolean;
  readonly reason?: string | undefined;
}

let approvalAnswer: ZodType<ApprovalAnswer> | undefined;

/** The answer's schema, made on first use: importing the package loads no zod. */
function approvalSchema(): ZodType<ApprovalAnswer> {
  const { z } = loadedZodOrFail();
  return (approvalAnswer ??= z.object({ approved: z.boolean(), reason: z.string().max(2_000).optional() }));
}

/** The signal a tool call's approval waits for: the tool and its call, so two calls never share one. */
function approvalName(toolName: string, toolUseId: string): string {
  return `approval of ${toolName} (${toolUseId})`;
}

/** Whether any of the call's tools may need approval (most calls: none, and no round asks). */
export function asksApproval(handlers: ReadonlyMap<string, ToolHandler>): boolean {
  for (const handler of handlers.values()) if (handler.needsApproval !== undefined) return true;
  return false;
}

/**
 * Asks for approval of the round's tool calls that need it, one after the other, before any of
 * them runs. Each is a durable wait: with no answer stored yet the run suspends, after keeping
 * where the call stands (`state`), so a resume goes on from this round without asking the model
 * again. Undefined when no call of the round needed approval.
 */
export async function approvalsOf<T>(
  call: PromptCall<T>,
  handlers: ReadonlyMap<string, ToolHandler>,
  toolUses: readonly ToolUseBlock[],
  state: PausedTurn,
): Promise<ReadonlyMap<string, ApprovalAnswer> | undefined> {
  let answers: Map<string, ApprovalAnswer> | undefined;
  let kept = false;
  for (const toolUse of toolUses) {
    const needs = handlers.get(toolUse.name)?.needsApproval;
    if (needs === undefined || !(await needs(toolUse.input))) continue;
    const workflow = call.tree.workflow;
    const node = call.tree.node;
    const journal = workflow === undefined ? undefined : journalOf(workflow);
    if (workflow === undefined || node === undefined || journal === undefined) {
      throw new UsageError(
        `Tool "${toolUse.name}" needs approval (agent "${call.agentName}"), and only a durable run can wait for it: ` +
          'give the root workflow `durable: { store }` (see docs/web-apps.md).',
      );
    }
    if (!kept) {
      await callJournalOf(call)?.pauseTurn?.(call, state);
      kept = true;
    }
    const name = approvalName(toolUse.name, toolUse.id);
    const answer = await journal.waitFor(workflow, node, name, approvalSchema(), {
      approval: { toolName: toolUse.name, toolUseId: toolUse.id, input: toolUse.input },
    });
    (answers ??= new Map()).set(toolUse.id, answer);
  }
  return answers;
}

/** What the model is told of a denied call, instead of its result. */
export function deniedResult(answer: ApprovalAnswer): string {
  return answer.reason === undefined || answer.reason.trim() === '' ? 'Denied by the user.' : `Denied by the user: ${answer.reason}`;
}
