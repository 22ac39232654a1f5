import type { ContentBlock, MessageCreateParamsNonStreaming, MessageParam, ToolResultBlockParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages/messages';
import { loadMcpRuntime } from '../mcp/load-mcp-runtime.js';
import type { McpConnection } from '../mcp/mcp-connection.js';
import type { TokenUsage } from '../types/usage.js';
import type { ModelRequestEvent } from '../types/events.js';
import type { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import { nextEventId } from '../util/ids.js';
import { addUsage, ZERO_USAGE } from '../util/usage.js';
import { MaxTurnsExceededError, StructuredOutputError } from './agent-errors.js';
import { requestBase, withOverride, withSystemBlocks } from './loop/request-builder.js';
import { runTool } from './loop/tool-round.js';
import type { PromptCall, PromptOutcome } from './prompt-call.js';
import type { ToolCallRecord } from './tool-call-record.js';
import { afterToolCall, afterToolRound, beforeRequest, observesToolCalls } from './turn-pipeline.js';
import { ANSWER_TOOL, parseAnswer } from './structured-output.js';
import { indexHandlers, localHandler, mcpHandlers, type ToolHandler } from './toolset.js';
import { UsageError } from '../errors/groundswell-error.js';
import { isLanguageModel } from './model/language-model.js';
import type { ModelAdapter, ModelAnswer, ModelRequestContext } from './model/model-adapter.js';
import type { Reservation } from '../budgets/reservation.js';
import { providerAdapter } from './model/provider-adapter.js';
import { providerFamily } from './model/provider-family.js';
import type { RequestOverride } from './turn-feature.js';
import { priceKeyOf } from './price-key.js';
import { failedRequest, reserveRequest } from './budget-gate.js';
import { reserveOrRaise } from './budget-suspend.js';
import { learnAnsweredInput } from './answered-input.js';
import { bookedUsage, bookUnreadable } from './booked-usage.js';
import { retryGate } from './retry-gate.js';
import { keepReservation } from './keep-reservation.js';
import { streamsText } from '../core/streams-text.js';
import { TextPieces } from './text-pieces.js';
import { approvalsOf, asksApproval } from './loop/approvals.js';
import { callJournalOf } from './call-journal.js';

/**
 * The core of a call: connect the call's MCP servers (with its env), then ask the model, run the
 * tools it asks for and send their results back, until it gives the final answer or `maxTurns`.
 */
export function runModel<T>(call: PromptCall<T>): Promise<PromptOutcome<T>> {
  // A plain structured answer (no tools, no servers), the usual call, has nothing to connect or close.
  if (call.settings.mcps.length === 0 && call.settings.tools.length === 0) return toolLoop(call, NO_HANDLERS);
  return withTools(call);
}

async function withTools<T>(call: PromptCall<T>): Promise<PromptOutcome<T>> {
  const connections: McpConnection[] = [];
  try {
    if (call.settings.mcps.length > 0) {
      const { connectMcp } = await loadMcpRuntime(call.settings.mcps.map((server) => server.name));
      for (const server of call.settings.mcps) {
        const started = call.tree.now();
        const connection = await connectMcp(server, { env: call.settings.env, signal: call.tree.signal, clientName: call.agentName });
        connections.push(connection);
        call.tree.emit({ type: 'mcpEvent', server: connection.server, phase: 'connected', duration: call.tree.now() - started });
      }
    }
    const handlers = indexHandlers([...call.settings.tools.map(localHandler), ...connections.flatMap(mcpHandlers)]);
    return await toolLoop(call, handlers);
  } finally {
    for (const connection of connections) {
      await connection.close().catch(() => undefined);
      call.tree.emit({ type: 'mcpEvent', server: connection.server, phase: 'closed' });
    }
  }
}

function toolLoop<T>(call: PromptCall<T>, handlers: ReadonlyMap<string, ToolHandler>): Promise<PromptOutcome<T>> {
  if (!isPlainCall(call, handlers)) return fullLoop(call, handlers, undefined);
  // Two functions, not one with a branch: the usual call's stays as small as it was.
  return call.budgets.length === 0 ? plainCall(call) : budgetedPlainCall(call);
}

/**
 * The usual call: no tools, turn features, streaming or journal (budgets are fine). Its first
 * request is sent without an async frame of its own (the loop's holds every local it has, on
 * every call); an answer that asks for tools goes on in the full loop.
 */
function isPlainCall<T>(call: PromptCall<T>, handlers: ReadonlyMap<string, ToolHandler>): boolean {
  return (
    handlers.size === 0 &&
    call.turnFeatures.length === 0 &&
    call.onStream === undefined &&
    call.settings.maxTurns >= 1 &&
    (call.tree.node === undefined || !streamsText(call.tree.workflow)) &&
    callJournalOf(call) === undefined
  );
}

/** The first turn of a plain call (see `isPlainCall`): as the full loop sends and reads it. */
function plainCall<T>(call: PromptCall<T>): Promise<PromptOutcome<T>> {
  let request: TurnRequest;
  try {
    const toolMode = call.settings.structuredOutput === 'tool';
    const base = requestBase(call, NO_HANDLERS, toolMode);
    request = plainRequest(call, base, [{ role: 'user', content: call.plan.userContent }], 1);
  } catch (error) {
    // Failures before the request is sent are rejections, as from the async loop.
    return Promise.reject(error);
  }
  return sendPlain(call, request, { agentName: call.agentName, tree: call.tree, onText: undefined, onReasoning: undefined, beforeRetry: undefined });
}

/** `plainCall` under budgets: its request reserved first (it may wait), retries asked of the budgets. */
function budgetedPlainCall<T>(call: PromptCall<T>): Promise<PromptOutcome<T>> {
  let ready: TurnRequest | Promise<TurnRequest>;
  let context: ModelRequestContext;
  try {
    const toolMode = call.settings.structuredOutput === 'tool';
    const base = requestBase(call, NO_HANDLERS, toolMode);
    // Under budgets every retry an adapter would send is a request: it asks them first.
    context = { agentName: call.agentName, tree: call.tree, onText: undefined, onReasoning: undefined, beforeRetry: retryGate(call) };
    const messages: MessageParam[] = [{ role: 'user', content: call.plan.userContent }];
    ready = shapedRequest(call, base, messages, 1);
  } catch (error) {
    // Failures before the request is sent are rejections, as from the async loop.
    return Promise.reject(error);
  }
  return ready instanceof Promise ? sendWhenReserved(call, ready, context) : sendPlain(call, ready, context);
}

/** Sends a request whose reservation waited (its own function: a closure would cost every call a heap context). */
function sendWhenReserved<T>(call: PromptCall<T>, ready: Promise<TurnRequest>, context: ModelRequestContext): Promise<PromptOutcome<T>> {
  return ready.then((request) => sendPlain(call, request, context));
}

/** Sends a plain call's first request; a failed one settles its reservation as the loop's does. */
function sendPlain<T>(call: PromptCall<T>, request: TurnRequest, context: ModelRequestContext): Promise<PromptOutcome<T>> {
  let sent: Promise<ModelAnswer>;
  try {
    sent = request.model.send(request.params, context);
  } catch (error) {
    return Promise.reject(unsent(call, request, error));
  }
  return sent.then(
    (response) => plainAnswer(call, request, response),
    (error: unknown) => {
      throw unsent(call, request, error);
    },
  );
}

/** A request that got no answer: an unreadable one booked, its reservation settled; the error the call fails with. */
function unsent<T>(call: PromptCall<T>, request: TurnRequest, error: unknown): unknown {
  bookUnreadable(call, request.held, request.model.provider, request.params, error);
  return failedRequest(request.held, error, call.agentName);
}

/** A plain call's first answer: the outcome, or the full loop from turn 1 when it asks for tools. */
function plainAnswer<T>(call: PromptCall<T>, request: TurnRequest, response: ModelAnswer): PromptOutcome<T> | Promise<PromptOutcome<T>> {
  const usage = addUsage(ZERO_USAGE, answered(call, request, response, 1));
  const toolMode = call.settings.structuredOutput === 'tool';
  const toolUses = toolMode || response.stop_reason === 'tool_use' ? response.content.filter(isToolUse) : NO_TOOL_USES;
  const answerCall = toolMode ? toolUses.find(isAnswerCall) : undefined;
  if (answerCall !== undefined || response.stop_reason !== 'tool_use' || toolUses.length === 0) {
    return finalOutcome(call, response, toolMode, answerCall, usage, 1, []);
  }
  const messages: MessageParam[] = [{ role: 'user', content: call.plan.userContent }];
  return fullLoop(call, NO_HANDLERS, { turn: 1, response, messages, usage });
}

/** A turn already answered before the loop runs (a plain call's first turn that asks for tools). */
interface AnsweredTurn {
  readonly turn: number;
  readonly response: ModelAnswer;
  readonly messages: MessageParam[];
  readonly usage: TokenUsage;
}

/** The call's result from its last answer: the answer tool's input, or the text, parsed. */
function finalOutcome<T>(
  call: PromptCall<T>,
  response: ModelAnswer,
  toolMode: boolean,
  answerCall: ToolUseBlock | undefined,
  usage: TokenUsage,
  turn: number,
  toolCalls: ToolCallRecord[],
): PromptOutcome<T> {
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
    answerText: typeof raw === 'string' ? raw : undefined,
    usage,
    turns: turn,
    stopReason: response.stop_reason,
    model: sameText(response.model, call.plan.model),
    cached: false,
    toolCalls,
  };
}

async function fullLoop<T>(call: PromptCall<T>, handlers: ReadonlyMap<string, ToolHandler>, given: AnsweredTurn | undefined): Promise<PromptOutcome<T>> {
  const { plan, settings } = call;
  const toolMode = settings.structuredOutput === 'tool';
  const base = requestBase(call, handlers, toolMode);
  const messages: MessageParam[] = given?.messages ?? [{ role: 'user', content: plan.userContent }];
  const toolCalls: ToolCallRecord[] = [];
  let usage: TokenUsage = given?.usage ?? ZERO_USAGE;

  const features = call.turnFeatures;
  // Only calls that have turn features pay for their awaits.
  const withFeatures = features.length > 0;
  const observed = withFeatures && observesToolCalls(features);
  const approving = asksApproval(handlers);
  let turn = 1;
  const pieces = textListener(call, () => turn);
  // Under budgets every retry an adapter would send is a request: it asks them first.
  const beforeRetry = call.budgets.length === 0 ? undefined : retryGate(call);
  // A call an earlier process stopped at a tool call's approval goes on from that turn.
  const paused = callJournalOf(call)?.pausedTurn?.(call);
  if (paused !== undefined) {
    messages.splice(0, messages.length, ...paused.messages);
    toolCalls.push(...paused.toolCalls);
    usage = paused.usage;
    call.meter.usage = addUsage(call.meter.usage, paused.usage);
    call.meter.carried = paused.usage;
    call.meter.turns += paused.requests;
    turn = paused.turn;
  }

  // What every request of the call is sent with: made once per call, not once per request.
  const context: ModelRequestContext = { agentName: call.agentName, tree: call.tree, onText: pieces?.onText, onReasoning: pieces?.onReasoning, beforeRetry };
  // Without turn features or budgets nothing is awaited before a request: the loop sends it
  // itself, with no async frame (a promise and a hop each way) per request around the send.
  const plain = !withFeatures && call.budgets.length === 0;

  for (; turn <= settings.maxTurns; turn += 1) {
    let response: ModelAnswer;
    if (paused !== undefined && turn === paused.turn) {
      response = paused.response;
    } else if (given !== undefined && turn === given.turn) {
      response = given.response;
    } else {
      const ready = plain ? plainRequest(call, base, messages, turn) : shapedRequest(call, base, messages, turn);
      // Awaited only when it waits (features, a budget's wait, a durable run's store).
      const request = ready instanceof Promise ? await ready : ready;
      try {
        response = await request.model.send(request.params, context);
        pieces?.flush();
      } catch (error) {
        pieces?.flush();
        bookUnreadable(call, request.held, request.model.provider, request.params, error);
        throw failedRequest(request.held, error, call.agentName);
      }
      usage = addUsage(usage, answered(call, request, response, turn));
    }

    // A text answer that does not ask for tools ends the call: nothing to look for in its content.
    const toolUses = toolMode || response.stop_reason === 'tool_use' ? response.content.filter(isToolUse) : NO_TOOL_USES;
    const answerCall = toolMode ? toolUses.find(isAnswerCall) : undefined;
    if (answerCall !== undefined || response.stop_reason !== 'tool_use' || toolUses.length === 0) {
      return finalOutcome(call, response, toolMode, answerCall, usage, turn, toolCalls);
    }
    const approvals = approving ? await approvalsOf(call, handlers, toolUses, { turn, messages: [...messages], response, usage, requests: call.meter.turns, toolCalls: [...toolCalls] }) : undefined;
    messages.push({ role: 'assistant', content: response.content });
    const results: ToolResultBlockParam[] = [];
    const round: ToolCallRecord[] = [];
    for (const toolUse of toolUses) {
      const record = await runTool(call, handlers, toolUse, turn, approvals?.get(toolUse.id));
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

/** One request of the tool loop, ready to send: its body, the model it goes to, what it holds of the call's budgets. */
interface TurnRequest {
  readonly params: MessageCreateParamsNonStreaming;
  readonly model: ModelAdapter;
  readonly held: Reservation | undefined;
  /** When it was sent (0 outside a tree, where nobody is told about single requests). */
  readonly sentAt: number;
}

/** A request of a call without turn features or budgets: the base and the conversation, nothing to wait for. */
function plainRequest<T>(call: PromptCall<T>, base: MessageCreateParamsNonStreaming, messages: MessageParam[], turn: number): TurnRequest {
  return { params: turnParams(base, messages, turn), model: call.model, held: undefined, sentAt: call.tree.node === undefined ? 0 : call.tree.now() };
}

/** A turn's request body: the usual call is one turn, whose body is the base with the first message, no copy. */
function turnParams(base: MessageCreateParamsNonStreaming, messages: MessageParam[], turn: number): MessageCreateParamsNonStreaming {
  if (turn !== 1) return { ...base, messages: [...messages] };
  base.messages = [messages[0] as MessageParam];
  return base;
}

/**
 * A request shaped by the call's turn features, then reserved on its budgets (both may wait).
 * Without features, and with a reservation that holds at once outside a durable run (the usual
 * budgeted request), it is ready at once: no async frame, promise or turn of its own.
 */
function shapedRequest<T>(
  call: PromptCall<T>,
  base: MessageCreateParamsNonStreaming,
  messages: MessageParam[],
  turn: number,
): TurnRequest | Promise<TurnRequest> {
  if (call.turnFeatures.length > 0) return featuredRequest(call, base, messages, turn);
  return reservedRequest(call, turnParams(base, messages, turn), call.model);
}

/** A request its turn features shape first (they may wait, and compact the conversation). */
async function featuredRequest<T>(
  call: PromptCall<T>,
  base: MessageCreateParamsNonStreaming,
  messages: MessageParam[],
  turn: number,
): Promise<TurnRequest> {
  const features = call.turnFeatures;
  let model: ModelAdapter = call.model;
  // Features may compact the conversation in place: the request copies it afterwards.
  const shaped = await beforeRequest(call, features, turn, messages);
  let params: MessageCreateParamsNonStreaming = { ...base, messages: [...messages] };
  if (shaped.blocks.length > 0) params = withSystemBlocks(params, shaped.blocks);
  if (shaped.override !== undefined) {
    params = withOverride(params, shaped.override.change, shaped.override.feature);
    model = adapterFor(call, shaped.override.change.model, shaped.override.feature);
  }
  return reservedRequest(call, params, model);
}

/** `params` reserved on the call's budgets, synchronously right before sending: calls sharing a budget cannot overshoot together. */
function reservedRequest<T>(call: PromptCall<T>, params: MessageCreateParamsNonStreaming, model: ModelAdapter): TurnRequest | Promise<TurnRequest> {
  const provider = model.provider;
  const reserving = call.budgets.length === 0 ? undefined : reserveOrRaise(call, () => reserveRequest(call, params, provider));
  if (reserving instanceof Promise) return reserving.then((held) => keptRequest(call, params, model, held));
  return keptRequest(call, params, model, reserving);
}

/** In a durable run the reservation is stored before the request leaves: a crash mid-request still counts. */
function keptRequest<T>(call: PromptCall<T>, params: MessageCreateParamsNonStreaming, model: ModelAdapter, held: Reservation | undefined): TurnRequest | Promise<TurnRequest> {
  const keeping = held === undefined ? undefined : keepReservation(call, held);
  if (keeping !== undefined) return keeping.then(() => sentRequest(call, params, model, held));
  return sentRequest(call, params, model, held);
}

/**
 * The request as it leaves. Its time is read only in a tree (outside one nobody is told about
 * single requests), after the reservation: a request that waited for budget is timed from when it was sent.
 */
function sentRequest<T>(call: PromptCall<T>, params: MessageCreateParamsNonStreaming, model: ModelAdapter, held: Reservation | undefined): TurnRequest {
  return { params, model, held, sentAt: call.tree.node === undefined ? 0 : call.tree.now() };
}

/** An answered request: its usage priced, booked on the budgets, reported and metered; returns that usage. */
function answered<T>(call: PromptCall<T>, request: TurnRequest, response: ModelAnswer, turn: number): TokenUsage {
  const { params, model, held } = request;
  const priceModel = priceKeyOf(call.pricing, model.provider, response.model, params.model, call.settings.modelName);
  if (call.pricing !== undefined && call.pricing[priceModel] === undefined) call.missingPrice.note(call.tree, call.agentName, priceModel);
  learnAnsweredInput(held, response);
  const turnUsage = bookedUsage(call, held, model.provider, params, response, priceModel);
  if (call.tree.node !== undefined) reportRequest(call, providerFamily(model.provider), turn, params.model, request.sentAt, response, turnUsage);
  // The meter spans the whole call, failed attempts and reflection retries included.
  call.meter.usage = addUsage(call.meter.usage, turnUsage);
  call.meter.turns += 1;
  call.onStream?.({ type: 'usage', usage: turnUsage, turn });
  return turnUsage;
}

const NO_HANDLERS: ReadonlyMap<string, ToolHandler> = new Map();
const NO_TOOL_USES: readonly ToolUseBlock[] = Object.freeze([]);

/**
 * The model one request goes to when a feature overrides it: a language model object runs on its
 * own adapter; a model id stays on the call's provider, which only the Anthropic client can take.
 */
function adapterFor<T>(call: PromptCall<T>, override: RequestOverride['model'], feature: string): ModelAdapter {
  if (override === undefined) return call.model;
  if (isLanguageModel(override)) return providerAdapter(override);
  if (call.model.provider === 'anthropic') return call.model;
  throw new UsageError(
    `Turn feature "${feature}" asked for model "${override}" by id, but this call runs on a ${providerFamily(call.model.provider)} model: give a language model object instead.`,
  );
}

/** One `modelRequest` event on the call's node: what a tracer shows as one model request. */
function reportRequest<T>(call: PromptCall<T>, provider: string, turn: number, requestModel: string, sentAt: number, response: ModelAnswer, usage: TokenUsage): void {
  const now = call.tree.now();
  const workflow = call.tree.workflow as Workflow;
  const node = call.tree.node as TreeNode;
  const agentName = call.agentName;
  const model = sameText(response.model, requestModel);
  const duration = now - sentAt;
  const stopReason = response.stop_reason;
  // Built whole, ids first as emit() orders them (see the tree interceptor): kept on every call's node.
  const event: ModelRequestEvent =
    provider === 'anthropic'
      ? { id: nextEventId(), nodeId: node.id, workflowId: workflow.id, timestamp: now, type: 'modelRequest', agentName, turn, requestModel, model, startTime: sentAt, duration, stopReason, usage }
      : {
          id: nextEventId(),
          nodeId: node.id,
          workflowId: workflow.id,
          timestamp: now,
          type: 'modelRequest',
          agentName,
          provider,
          turn,
          requestModel,
          model,
          startTime: sentAt,
          duration,
          stopReason,
          ...(response.providerStopReason === undefined ? {} : { providerStopReason: response.providerStopReason }),
          usage,
        };
  workflow.dispatch(node, event);
}

/**
 * `text`, as the string `known` when the two are equal: the answer's model name is a new string
 * per answer, the request's is the call's own, and the call's events keep it (~40 bytes each call).
 */
function sameText(text: string, known: string): string {
  return text === known ? known : text;
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

function isAnswerCall(block: ToolUseBlock): boolean {
  return block.name === ANSWER_TOOL;
}

function textOf(content: readonly ContentBlock[]): string {
  let text = '';
  for (const block of content) if (block.type === 'text') text += block.text;
  return text;
}

/**
 * Where the pieces of a streamed answer go: the caller of `agent.stream()`, and `agentText` events
 * when the call's tree streams text. Undefined when neither wants them: the request is not streamed.
 */
function textListener<T>(call: PromptCall<T>, turnNow: () => number): StreamedPieces | undefined {
  const stream = call.onStream;
  const workflow = call.tree.node !== undefined && streamsText(call.tree.workflow) ? call.tree.workflow : undefined;
  if (workflow === undefined) return stream === undefined ? undefined : { onText: (text) => stream({ type: 'text', text }), flush() {} };
  const agentName = call.agentName;
  const text = new TextPieces(workflow, (delta) => {
    call.tree.emit({ type: 'agentText', agentName, turn: turnNow(), delta });
    stream?.({ type: 'text', text: delta });
  });
  // Reasoning is the tree's only: `agent.stream()` has never yielded it.
  const reasoning = new TextPieces(workflow, (delta) => call.tree.emit({ type: 'agentText', agentName, turn: turnNow(), delta, reasoning: true }));
  return {
    onText: text.onText,
    onReasoning: reasoning.onText,
    flush() {
      reasoning.flush();
      text.flush();
    },
  };
}

/** Where a streamed request's pieces go, and how what was held back is let out at its end. */
interface StreamedPieces {
  readonly onText: (text: string) => void;
  readonly onReasoning?: (text: string) => void;
  flush(): void;
}
