import type {
  ContentBlock,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { Middleware } from '@anthropic-ai/sdk';
import { loadMcpRuntime } from '../mcp/load-mcp-runtime.js';
import type { McpConnection } from '../mcp/mcp-connection.js';
import { errorMessage } from '../util/describe.js';
import type { TokenUsage } from '../types/usage.js';
import { addUsage, ZERO_USAGE } from '../util/usage.js';
import { MaxTurnsExceededError, StructuredOutputError } from './agent-errors.js';
import type { CallTree } from './call-tree.js';
import { apiErrorBody } from './api-error-body.js';
import { checkedAnswer } from './checked-answer.js';
import { loadAnthropicRuntime, loadedAnthropicRuntime, type AnthropicRuntime } from './load-anthropic-runtime.js';
import type { HookContext } from './hooks.js';
import { runHook, runPreToolUse } from './run-hook.js';
import { priced, usageFromApi } from './pricing.js';
import type { PromptCall, PromptOutcome } from './prompt-call.js';
import type { ToolCallRecord } from './tool-call-record.js';
import { afterToolCall, afterToolRound, beforeRequest, observesToolCalls } from './turn-pipeline.js';
import { ANSWER_TOOL, answerTool, outputFormat, parseAnswer } from './structured-output.js';
import { indexHandlers, localHandler, mcpHandlers, type ToolHandler, type ToolOutcome } from './toolset.js';

const TREE_OUTPUT_LIMIT = 2_000;

/**
 * The core of a call: connect the call's MCP servers (with its env), then ask the model, run the
 * tools it asks for and send their results back, until it gives the final answer or `maxTurns`.
 */
export async function runModel<T>(call: PromptCall<T>): Promise<PromptOutcome<T>> {
  const connections: McpConnection[] = [];
  try {
    if (call.settings.mcps.length > 0) {
      const { connectMcp } = await loadMcpRuntime();
      for (const server of call.settings.mcps) {
        const started = call.tree.now();
        const connection = await connectMcp(server, { env: call.settings.env, signal: call.tree.signal, clientName: call.agentName });
        connections.push(connection);
        call.tree.emit({ type: 'mcpEvent', server: connection.server, phase: 'connected', duration: call.tree.now() - started });
      }
    }
    const tools = call.settings.tools;
    // No tools and no servers (a plain structured answer) skips building the index.
    const handlers =
      tools.length === 0 && connections.length === 0
        ? NO_HANDLERS
        : indexHandlers([...tools.map(localHandler), ...connections.flatMap(mcpHandlers)]);
    return await toolLoop(call, handlers);
  } finally {
    for (const connection of connections) {
      await connection.close().catch(() => undefined);
      call.tree.emit({ type: 'mcpEvent', server: connection.server, phase: 'closed' });
    }
  }
}

async function toolLoop<T>(call: PromptCall<T>, handlers: ReadonlyMap<string, ToolHandler>): Promise<PromptOutcome<T>> {
  const { plan, settings } = call;
  const toolMode = settings.structuredOutput === 'tool';
  const runtime = loadedAnthropicRuntime() ?? (await loadAnthropicRuntime());
  const base = requestBase(call, handlers, toolMode, runtime);
  const messages: MessageParam[] = [{ role: 'user', content: plan.userContent }];
  const toolCalls: ToolCallRecord[] = [];
  let usage: TokenUsage = { ...ZERO_USAGE };

  const features = call.turnFeatures;
  // Only calls that have turn features pay for their awaits.
  const withFeatures = features.length > 0;
  const observed = withFeatures && observesToolCalls(features);

  for (let turn = 1; turn <= settings.maxTurns; turn += 1) {
    let params: MessageCreateParamsNonStreaming;
    if (withFeatures) {
      const blocks = await beforeRequest(call, features, turn, messages);
      params = { ...base, messages: [...messages] };
      if (blocks.length > 0) params = withSystemBlocks(params, blocks);
    } else {
      params = { ...base, messages: [...messages] };
    }
    // Read only in a tree: outside one nobody is told about single requests.
    const sentAt = call.tree.node === undefined ? 0 : call.tree.now();
    const response = await send(call, params);
    // The API may answer an alias with a dated id: price by either name.
    const priceModel = call.pricing?.[response.model] !== undefined ? response.model : plan.model;
    if (call.pricing !== undefined && call.pricing[priceModel] === undefined) call.missingPrice.note(call.tree, call.agentName, plan.model);
    const turnUsage = priced(usageFromApi(response.usage), priceModel, call.pricing);
    if (call.tree.node !== undefined) reportRequest(call, turn, sentAt, response, turnUsage);
    usage = addUsage(usage, turnUsage);
    // The meter spans the whole call, failed attempts and reflection retries included.
    call.meter.usage = addUsage(call.meter.usage, turnUsage);
    call.meter.turns += 1;
    call.onStream?.({ type: 'usage', usage: turnUsage, turn });
    messages.push({ role: 'assistant', content: response.content });

    const toolUses = response.content.filter(isToolUse);
    const answerCall = toolMode ? toolUses.find(isAnswerCall) : undefined;
    if (answerCall !== undefined || response.stop_reason !== 'tool_use' || toolUses.length === 0) {
      if (toolMode && answerCall === undefined) {
        throw new StructuredOutputError(
          `Agent "${call.agentName}": the model ended without calling ${ANSWER_TOOL}.`,
          call.agentName,
          'missing_output',
          [],
          textOf(response.content),
        );
      }
      const raw = toolMode ? answerCall?.input : textOf(response.content);
      const answer = parseAnswer(raw, call.prompt.responseFormat, call.agentName, !toolMode);
      return {
        value: answer.value,
        answerData: answer.data,
        usage,
        turns: turn,
        stopReason: response.stop_reason,
        model: response.model,
        cached: false,
        toolCalls,
      };
    }
    const results: ToolResultBlockParam[] = [];
    const round: ToolCallRecord[] = [];
    for (const toolUse of toolUses) {
      const record = await runTool(call, handlers, toolUse, turn);
      toolCalls.push(record);
      if (observed) {
        const handler = handlers.get(toolUse.name);
        const target = handler?.targetOf?.(toolUse.input);
        afterToolCall(features, {
          turn,
          record,
          ...(handler?.effect !== undefined ? { effect: handler.effect } : {}),
          ...(target !== undefined ? { target } : {}),
        });
      }
      if (withFeatures) round.push(record);
      results.push({ type: 'tool_result', tool_use_id: toolUse.id, content: record.output, is_error: record.isError });
    }
    if (withFeatures) afterToolRound(features, turn, round);
    messages.push({ role: 'user', content: results });
  }
  throw new MaxTurnsExceededError(call.agentName, settings.maxTurns);
}

const NO_HANDLERS: ReadonlyMap<string, ToolHandler> = new Map();

/** One `modelRequest` event on the call's node: what a tracer shows as one model request. */
function reportRequest<T>(call: PromptCall<T>, turn: number, sentAt: number, response: Message, usage: TokenUsage): void {
  const now = call.tree.now();
  call.tree.emit(
    {
      type: 'modelRequest',
      agentName: call.agentName,
      turn,
      requestModel: call.plan.model,
      model: response.model,
      startTime: sentAt,
      duration: now - sentAt,
      stopReason: response.stop_reason,
      usage,
    },
    now,
  );
}

/**
 * Every request's fields but the messages, in the order they are sent (the key order is part of
 * the body recordings and cache keys compare). Plain assignments: this runs once per call.
 */
function requestBase<T>(
  call: PromptCall<T>,
  handlers: ReadonlyMap<string, ToolHandler>,
  toolMode: boolean,
  runtime: AnthropicRuntime,
): Omit<MessageCreateParamsNonStreaming, 'messages'> {
  const { plan } = call;
  // `temperature` is sent as before, though this SDK's request type no longer lists it.
  const base: Omit<MessageCreateParamsNonStreaming, 'messages'> & { temperature?: number } = {
    model: plan.model,
    max_tokens: plan.maxTokens,
  };
  if (plan.systemParam !== undefined) base.system = plan.systemParam;
  if (plan.temperature !== undefined) base.temperature = plan.temperature;
  if (plan.stop !== undefined) base.stop_sequences = [...plan.stop];
  const tools: Tool[] = [];
  for (const handler of handlers.values()) tools.push(handler.definition);
  if (toolMode) tools.push(answerTool(call.prompt.responseFormat, runtime));
  if (tools.length > 0) base.tools = tools;
  if (toolMode) base.tool_choice = handlers.size > 0 ? { type: 'any' } : { type: 'tool', name: ANSWER_TOOL };
  else base.output_config = { format: outputFormat(call.prompt.responseFormat, runtime) };
  return base;
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

function isAnswerCall(block: ToolUseBlock): boolean {
  return block.name === ANSWER_TOOL;
}

/** The request with the features' blocks after the cached system sections (for this request only). */
function withSystemBlocks(params: MessageCreateParamsNonStreaming, texts: readonly string[]): MessageCreateParamsNonStreaming {
  const system = params.system;
  const blocks: TextBlockParam[] =
    system === undefined ? [] : typeof system === 'string' ? [{ type: 'text', text: system }] : [...system];
  for (const text of texts) blocks.push({ type: 'text', text });
  return { ...params, system: blocks };
}

/** One model request, its answer checked; streamed turn by turn for `agent.stream()`. */
function send<T>(call: PromptCall<T>, params: MessageCreateParamsNonStreaming): Promise<Message> {
  const { tree, agentName } = call;
  const options: { middleware?: Middleware[]; signal?: AbortSignal } = {};
  let attempt = noAttempts;
  // Outside a workflow there is nobody to report attempts to, so the SDK keeps its fast path.
  if (tree.workflow !== undefined) {
    const attempts = { count: 0 };
    options.middleware = [attemptReporter(call, attempts)];
    attempt = () => attempts.count;
  }
  if (tree.signal) options.signal = tree.signal;
  const onStream = call.onStream;
  if (onStream === undefined) {
    const pending = call.client.messages.create(params, options);
    return checkedAnswer({ agentName, tree, attempt, answer: pending, response: () => pending.asResponse() });
  }
  const stream = call.client.messages.stream(params, options);
  stream.on('text', (text) => onStream({ type: 'text', text }));
  return checkedAnswer({ agentName, tree, attempt, answer: stream.finalMessage(), response: () => Promise.resolve(stream.response) });
}

function noAttempts(): number {
  return 0;
}

/** Reports every failed HTTP attempt of a request, so the SDK's retries show in the tree. */
function attemptReporter<T>(call: PromptCall<T>, attempts: { count: number }): Middleware {
  return async (request, next) => {
    attempts.count += 1;
    const attempt = attempts.count;
    try {
      const response = await next(request);
      if (response.status >= 400) {
        // The API's own message says what went wrong; the status text only repeats the status.
        const body = await apiErrorBody(response);
        const message = body.message ?? (response.statusText || `HTTP ${response.status}`);
        call.tree.emit({ type: 'apiError', agentName: call.agentName, attempt, status: response.status, message, ...(body.type !== undefined ? { errorType: body.type } : {}) });
      }
      return response;
    } catch (error) {
      // A cancelled workflow aborting its own request is not an API problem.
      if (call.tree.signal?.aborted !== true) {
        call.tree.emit({ type: 'apiError', agentName: call.agentName, attempt, status: null, message: errorMessage(error) });
      }
      throw error;
    }
  };
}

async function runTool<T>(
  call: PromptCall<T>,
  handlers: ReadonlyMap<string, ToolHandler>,
  toolUse: ToolUseBlock,
  turn: number,
): Promise<ToolCallRecord> {
  const handler = handlers.get(toolUse.name);
  const kind = handler?.kind ?? 'local';
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
    return await invokeTool(call, handlers, handler, toolUse, node, base, started);
  } catch (error) {
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
): Promise<ToolCallRecord> {
  const kind = handler?.kind ?? 'local';
  const decision = await runPreToolUse(call.settings.hooks, base);
  let outcome: ToolOutcome;
  let blockedReason: string | undefined;
  if (decision && decision.block) {
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

function textOf(content: readonly ContentBlock[]): string {
  let text = '';
  for (const block of content) if (block.type === 'text') text += block.text;
  return text;
}
