import type { AgentPromptEndEvent, RunWaitEvent, WorkflowEvent } from '../types/events.js';
import type { TokenUsage } from '../types/usage.js';
import type { NodeKindName, RunStreamOptions, TextCall } from './run-stream-options.js';
import type { NodePartData, RunChunk, UIChunk } from './ui-chunk.js';
import { JsonTextPicker } from './json-text-picker.js';

type Writable<T> = { -readonly [K in keyof T]: T[K] };

interface OpenText {
  readonly partId: string;
  readonly picker: JsonTextPicker;
  /** Pieces of the answer seen (whether or not they added text). */
  pieces: number;
  /** The call's reasoning part, once the model gave some. */
  reasoning: string | undefined;
  /** Whether the text part was started: at its first text, so reasoning given before it comes first. */
  started: boolean;
}

/**
 * Writes a run's events, in order, as UI message chunks. The chunks are a function of the events
 * alone (no clock, no tree), so the same event log always gives the same chunks with the same ids:
 * the `seq`-th event's chunks are `seq`, `seq.1`, `seq.2`… That is what lets a reader that lost its
 * connection go on after the last id it saw, in this process or another.
 */
export class UIChunkEncoder {
  private rootWorkflowId: string | undefined;
  private started = false;
  private ended = false;
  private failure: string | undefined;
  /** Nodes started and not ended, for their end's part and for a process that stopped under them. */
  private readonly open = new Map<string, NodePartData>();
  private readonly texts = new Map<string, OpenText>();
  /** Tool calls whose input was sent already (they waited for approval before running). */
  private readonly announced = new Set<string>();
  private readonly nodeKinds: ReadonlySet<NodeKindName> | undefined;
  private readonly wantsText: (call: TextCall) => boolean;
  /** This event's chunks are the first `count`; the array is kept from event to event (no array per event). */
  private readonly written: RunChunk[] = [];
  private count = 0;
  private seq = 0;
  /** The open text part the last piece went to, and its call's node: a call's pieces come in a row (no map lookup each). */
  private lastText: OpenText | undefined;
  private lastTextNode = '';

  constructor(private readonly options: RunStreamOptions = {}) {
    const nodes = options.nodes ?? 'all';
    this.nodeKinds = nodes === 'all' ? undefined : new Set(nodes === 'none' ? [] : nodes);
    const text = options.text ?? 'root';
    this.wantsText = text === 'root' ? (call) => call.byRoot : text === 'all' ? () => true : text;
  }

  /** True once the root workflow ended (not suspended): the stream's last chunk (`finish`) was written. */
  get done(): boolean {
    return this.ended;
  }

  /** The chunks of the event stored (or seen) as number `seq`; `seq` increases by event. */
  encode(event: WorkflowEvent, seq: number): RunChunk[] {
    const count = this.encodeInPlace(event, seq);
    return count === 0 ? [] : this.written.slice(0, count);
  }

  /**
   * Like `encode`, for a caller that reads them at once: the chunks are the first `count` (returned)
   * of `chunks`, until the next event. A live run's every text piece passes here.
   */
  encodeInPlace(event: WorkflowEvent, seq: number): number {
    this.count = 0;
    this.seq = seq;
    if (this.ended) return 0;
    // Nearly every event of a streamed run is a text piece: it skips the switch.
    if (event.type === 'agentText' && event.reasoning !== true) this.textWritten(event.nodeId, event.delta);
    else this.dispatch(event);
    return this.count;
  }

  get chunks(): readonly RunChunk[] {
    return this.written;
  }

  private push(chunk: UIChunk): void {
    const n = this.count;
    this.written[n] = { id: n === 0 ? String(this.seq) : `${this.seq}.${n}`, chunk };
    this.count = n + 1;
  }

  private dispatch(event: WorkflowEvent): void {
    switch (event.type) {
      case 'workflowStart':
        return this.workflowStarted(event.nodeId, event.workflowId, event.name, event.timestamp, event.resumed !== undefined);
      case 'workflowEnd':
        return this.workflowEnded(event.nodeId, event.status, event.duration);
      case 'stepStart':
        return this.nodeStarted(event.nodeId, event.workflowId, 'step', event.name, event.timestamp);
      case 'stepEnd':
        return this.nodeEnded(event.nodeId, event.status, event.duration);
      case 'stepReplayed':
        return this.node({ nodeId: event.nodeId, workflowId: event.workflowId, kind: 'step', name: event.name, status: event.status, startedAt: event.timestamp, replayed: true });
      case 'taskStart':
        return this.nodeStarted(event.nodeId, event.workflowId, 'task', event.name, event.timestamp);
      case 'taskEnd':
        return this.nodeEnded(event.nodeId, event.status, event.duration);
      case 'agentPromptStart':
        return this.callStarted(event.nodeId, event.workflowId, event.agentName, event.timestamp);
      case 'agentText':
        return event.reasoning === true ? this.reasoned(event.nodeId, event.delta) : this.textWritten(event.nodeId, event.delta);
      case 'agentPromptEnd':
        return this.callEnded(event);
      case 'toolInvocation':
        return this.toolCalled(event.toolUseId, event.toolName, event.input, event.output, event.isError, event.approval === 'denied');
      case 'mcpEvent':
        if (event.phase === 'call' && event.toolUseId !== undefined) {
          this.toolCalled(event.toolUseId, `${event.server}.${event.toolName ?? 'tool'}`, event.input, event.output ?? '', event.isError === true);
        }
        return;
      case 'budgetWarning':
      case 'budgetExceeded':
        this.push({
          type: 'data-budget',
          id: `budget:${event.budgetNodeId}:${event.dimension}`,
          data: {
            state: event.type === 'budgetWarning' ? 'warning' : 'exceeded',
            budgetPath: event.budgetPath,
            dimension: event.dimension,
            limit: event.limit,
            spent: event.spent,
            reserved: event.reserved,
          },
        });
        return;
      case 'trajectoryCheckpoint':
        this.push({
          type: 'data-checkpoint',
          id: `checkpoint:${event.nodeId}`,
          data: { nodeId: event.nodeId, agentName: event.agentName, revision: event.revision, assessment: event.assessment, checkpoint: event.checkpoint },
        });
        return;
      case 'goalSignOff':
        this.push({ type: 'data-signoff', id: `signoff:${event.goal}`, data: { goal: event.goal, verdict: event.verdict, missing: event.missing } });
        return;
      case 'waitStarted':
        if (event.approval !== undefined) return this.approvalAsked(event.name, event.approval.toolUseId, event.approval.toolName, event.approval.input);
        return this.waited(event);
      case 'signalReceived':
      case 'signalRejected':
        return this.waited(event);
      case 'error':
        if (event.workflowId === this.rootWorkflowId) this.failure = event.error.message;
        return;
      default:
        return;
    }
  }

  private waited(event: RunWaitEvent): void {
    this.push({
      type: 'data-wait',
      id: `wait:${event.nodeId}:${event.name}`,
      data: {
        name: event.name,
        state: event.type === 'waitStarted' ? 'waiting' : event.type === 'signalReceived' ? 'received' : 'rejected',
        ...(event.timeoutAt === undefined ? {} : { timeoutAt: event.timeoutAt }),
        ...(event.reason === undefined ? {} : { reason: event.reason }),
      },
    });
  }

  /** The call is shown with its input and an approval request the app answers (its id is the signal's name). */
  private approvalAsked(approvalId: string, toolCallId: string, toolName: string, input: unknown): void {
    if (!this.announced.has(toolCallId)) {
      this.announced.add(toolCallId);
      this.push({ type: 'tool-input-available', toolCallId, toolName, input, dynamic: true });
    }
    this.push({ type: 'tool-approval-request', approvalId, toolCallId });
  }

  private workflowStarted(nodeId: string, workflowId: string, name: string, at: number, resumed: boolean): void {
    if (!this.started) {
      this.started = true;
      this.rootWorkflowId = workflowId;
      this.push({ type: 'start', messageId: this.options.messageId ?? workflowId });
    } else if (resumed || workflowId === this.rootWorkflowId) {
      // Another process took the run over: what the last one left open never ends.
      this.interrupted();
      this.rootWorkflowId = workflowId;
    }
    this.nodeStarted(nodeId, workflowId, 'workflow', name, at);
  }

  private workflowEnded(nodeId: string, status: string, duration: number): void {
    const root = this.open.get(nodeId)?.workflowId === this.rootWorkflowId && this.open.get(nodeId)?.kind === 'workflow';
    this.nodeEnded(nodeId, status, duration);
    // A suspended run goes on when a signal resumes it (in this process or another): no finish.
    if (!root || status === 'suspended') return;
    for (const text of this.texts.values()) this.endText(text);
    this.texts.clear();
    this.lastText = undefined;
    if (status !== 'completed') this.push({ type: 'error', errorText: this.failure ?? `The run ended ${status}.` });
    this.push({ type: 'finish', finishReason: status === 'completed' ? 'stop' : status === 'failed' ? 'error' : 'other' });
    this.ended = true;
  }

  private interrupted(): void {
    for (const text of this.texts.values()) this.endText(text);
    this.texts.clear();
    this.lastText = undefined;
    for (const node of this.open.values()) this.node({ ...node, status: 'interrupted' });
    this.open.clear();
  }

  private nodeStarted(nodeId: string, workflowId: string, kind: NodeKindName, name: string, startedAt: number): void {
    const data: NodePartData = { nodeId, workflowId, kind, name, status: 'running', startedAt };
    this.open.set(nodeId, data);
    this.node(data);
  }

  private nodeEnded(nodeId: string, status: string, durationMs: number | undefined, usage?: TokenUsage): void {
    const started = this.open.get(nodeId);
    if (started === undefined) return;
    this.open.delete(nodeId);
    // Built field by field, not by spreads: every step and call ends here. Same keys, same order.
    const data: Writable<NodePartData> = { nodeId, workflowId: started.workflowId, kind: started.kind, name: started.name, status, startedAt: started.startedAt };
    if (durationMs !== undefined) data.durationMs = durationMs;
    if (usage !== undefined) data.usage = usageOf(usage);
    this.node(data);
  }

  private node(data: NodePartData): void {
    if (this.nodeKinds === undefined || this.nodeKinds.has(data.kind)) this.push({ type: 'data-node', id: `node:${data.nodeId}`, data });
  }

  private callStarted(nodeId: string, workflowId: string, agentName: string, at: number): void {
    this.nodeStarted(nodeId, workflowId, 'agent', agentName, at);
    if (!this.wantsText({ agentName, workflowId, byRoot: workflowId === this.rootWorkflowId })) return;
    const partId = `text:${nodeId}`;
    if (this.texts.size === 0) this.push({ type: 'start-step' });
    this.texts.set(nodeId, { partId, picker: new JsonTextPicker(this.options.textField), pieces: 0, reasoning: undefined, started: false });
    // A node's part replaced: the shortcut must not keep the old one.
    if (nodeId === this.lastTextNode) this.lastText = undefined;
  }

  private reasoned(nodeId: string, delta: string): void {
    const text = this.texts.get(nodeId);
    if (text === undefined || delta.length === 0) return;
    if (text.reasoning === undefined) {
      text.reasoning = `reasoning:${nodeId}`;
      this.push({ type: 'reasoning-start', id: text.reasoning });
    }
    this.push({ type: 'reasoning-delta', id: text.reasoning, delta });
  }

  private textDelta(text: OpenText, delta: string): void {
    if (delta.length === 0) return;
    if (!text.started) {
      text.started = true;
      this.push({ type: 'text-start', id: text.partId });
    }
    this.push({ type: 'text-delta', id: text.partId, delta });
  }

  /** Ends the call's parts: its reasoning, then its text. */
  private endText(text: OpenText): void {
    if (text.reasoning !== undefined) this.push({ type: 'reasoning-end', id: text.reasoning });
    if (text.started) this.push({ type: 'text-end', id: text.partId });
  }

  private textWritten(nodeId: string, piece: string): void {
    let text = nodeId === this.lastTextNode ? this.lastText : undefined;
    if (text === undefined) {
      text = this.texts.get(nodeId);
      if (text === undefined) return;
      this.lastText = text;
      this.lastTextNode = nodeId;
    }
    text.pieces += 1;
    this.textDelta(text, text.picker.add(piece));
  }

  private callEnded(event: AgentPromptEndEvent): void {
    this.nodeEnded(event.nodeId, event.status, event.duration, event.usage);
    const text = this.texts.get(event.nodeId);
    if (text === undefined) return;
    this.texts.delete(event.nodeId);
    this.lastText = undefined;
    // Not streamed (a cache hit, a replayed call, or `streamText` off): the answer in one piece.
    if (text.pieces === 0 && event.output !== undefined) {
      this.textDelta(text, text.picker.add(event.output));
    }
    this.endText(text);
    if (this.texts.size === 0) this.push({ type: 'finish-step' });
  }

  private toolCalled(toolCallId: string, toolName: string, input: unknown, output: string, isError: boolean, denied = false): void {
    if (!this.announced.delete(toolCallId)) this.push({ type: 'tool-input-available', toolCallId, toolName, input, dynamic: true });
    if (denied) this.push({ type: 'tool-output-denied', toolCallId });
    else if (isError) this.push({ type: 'tool-output-error', toolCallId, errorText: output, dynamic: true });
    else this.push({ type: 'tool-output-available', toolCallId, output, dynamic: true });
  }
}

function usageOf(usage: TokenUsage): NodePartData['usage'] {
  // Field by field, not by a spread: every call's end passes here. Same keys, same order.
  const out: Writable<NonNullable<NodePartData['usage']>> = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  if (usage.costUsd !== undefined) out.costUsd = usage.costUsd;
  return out;
}
