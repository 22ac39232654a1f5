import type { ToolUseBlock } from '@anthropic-ai/sdk/resources/messages/messages';
import type { CallTree } from '../call-tree.js';
import type { HookContext } from '../hooks.js';
import type { PromptCall } from '../prompt-call.js';
import { runHook, runPreToolUse } from '../run-hook.js';
import type { ToolCallRecord } from '../tool-call-record.js';
import type { ToolHandler, ToolOutcome } from '../toolset.js';
import { reserveToolCall, settleToolCall } from '../budget-gate.js';
import { reserveOrRaise } from '../budget-suspend.js';
import { deniedResult, type ApprovalAnswer } from './approvals.js';

const TREE_OUTPUT_LIMIT = 2_000;

/** Runs one tool the model asked for: hooks around it, its node and event in the tree, its record. */
export async function runTool<T>(
  call: PromptCall<T>,
  handlers: ReadonlyMap<string, ToolHandler>,
  toolUse: ToolUseBlock,
  turn: number,
  approval?: ApprovalAnswer,
): Promise<ToolCallRecord> {
  const handler = handlers.get(toolUse.name);
  const kind = handler?.kind ?? 'local';
  // Before the tool's node: a refused call runs nothing and fails the agent call.
  const reserving = call.budgets.length === 0 ? undefined : reserveOrRaise(call, () => reserveToolCall(call, toolUse.name));
  const held = reserving instanceof Promise ? await reserving : reserving;
  const node = call.tree.child(kind === 'mcp' ? 'mcpCall' : 'toolCall', toolUse.name);
  const started = node.now();
  const base: HookContext = {
    ...hookBase(call, turn),
    toolName: toolUse.name,
    toolUseId: toolUse.id,
    toolInput: toolUse.input,
  };
  call.onStream?.({ type: 'toolUse', toolUseId: toolUse.id, name: toolUse.name, input: toolUse.input });

  try {
    const record = await invokeTool(call, handlers, handler, toolUse, node, base, started, approval);
    // A refused or denied call ran nothing: it is not counted as a tool call.
    settleToolCall(held, handler !== undefined && record.blockedReason === undefined && approval?.approved !== false);
    return record;
  } catch (error) {
    settleToolCall(held, handler !== undefined);
    // A throwing hook fails the call; its tool node must not be left running.
    node.finish('failed');
    throw error;
  }
}

async function invokeTool<T>(
  call: PromptCall<T>,
  handlers: ReadonlyMap<string, ToolHandler>,
  handler: ToolHandler | undefined,
  toolUse: ToolUseBlock,
  node: CallTree,
  base: HookContext,
  started: number,
  approval: ApprovalAnswer | undefined,
): Promise<ToolCallRecord> {
  const kind = handler?.kind ?? 'local';
  const decision = await runPreToolUse(call.settings.hooks, base);
  let outcome: ToolOutcome;
  let blockedReason: string | undefined;
  if (approval?.approved === false) {
    // Not an error: the model is told the person said no, and may go on another way.
    outcome = { content: deniedResult(approval), isError: false };
  } else if (decision && decision.block) {
    blockedReason = decision.reason;
    outcome = { content: `The call was refused: ${decision.reason}`, isError: true };
  } else if (handler === undefined) {
    const known = [...handlers.keys()].join(', ') || 'none';
    outcome = { content: `Unknown tool "${toolUse.name}". Available tools: ${known}.`, isError: true };
  } else {
    const context = { env: call.settings.env, signal: call.tree.signal, agentName: call.agentName, toolUseId: toolUse.id };
    outcome = await node.run(() => handler.invoke(toolUse.input, context));
  }
  await runHook(call.settings.hooks, 'postToolUse', { ...base, result: outcome.content, isError: outcome.isError });

  const duration = node.now() - started;
  const output = outcome.content.length > TREE_OUTPUT_LIMIT ? `${outcome.content.slice(0, TREE_OUTPUT_LIMIT)}…` : outcome.content;
  if (kind === 'mcp') {
    node.emit({
      type: 'mcpEvent',
      server: handler?.server ?? 'unknown',
      phase: 'call',
      toolName: toolUse.name,
      toolUseId: toolUse.id,
      input: toolUse.input,
      output,
      isError: outcome.isError,
      duration,
    });
  } else {
    node.emit({
      type: 'toolInvocation',
      toolName: toolUse.name,
      toolUseId: toolUse.id,
      input: toolUse.input,
      output,
      isError: outcome.isError,
      duration,
      ...(blockedReason !== undefined ? { blockedReason } : {}),
      ...(outcome.outcome !== undefined ? { outcome: outcome.outcome } : {}),
      ...(approval !== undefined ? { approval: approval.approved ? ('approved' as const) : ('denied' as const) } : {}),
    });
  }
  node.finish(outcome.isError ? 'failed' : 'completed');
  const delegated = node.node?.children.some((child) => child.kind === 'agentPrompt' || child.kind === 'workflow') === true;
  call.onStream?.({ type: 'toolResult', toolUseId: toolUse.id, name: toolUse.name, output: outcome.content, isError: outcome.isError });
  return {
    toolUseId: toolUse.id,
    name: toolUse.name,
    kind,
    input: toolUse.input,
    output: outcome.content,
    isError: outcome.isError,
    duration,
    ...(blockedReason !== undefined ? { blockedReason } : {}),
    ...(delegated ? { delegated } : {}),
    ...(outcome.outcome !== undefined ? { outcome: outcome.outcome } : {}),
  };
}

/** The fields every hook context of this call shares. */
export function hookBase<T>(call: PromptCall<T>, turn: number): HookContext {
  return {
    agentName: call.agentName,
    promptId: call.promptId,
    model: call.plan.model,
    nodeId: call.tree.node?.id,
    workflowId: call.tree.workflow?.id,
    turn,
  };
}
