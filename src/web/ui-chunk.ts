/**
 * The chunks of the AI SDK's UI message stream that a run is written as (the protocol `useChat`
 * and `readUIMessageStream` read). Declared here so the package needs no `ai` install.
 */
export type UIChunk =
  | { readonly type: 'start'; readonly messageId?: string }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'text-start'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | { readonly type: 'reasoning-start'; readonly id: string }
  | { readonly type: 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'reasoning-end'; readonly id: string }
  | { readonly type: 'tool-input-available'; readonly toolCallId: string; readonly toolName: string; readonly input: unknown; readonly dynamic: true }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown; readonly dynamic: true }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string; readonly dynamic: true }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | RunDataChunk
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'finish'; readonly finishReason?: 'stop' | 'error' | 'other' };

/**
 * What is ours, as typed data parts. A part's `id` is stable: a later chunk with the same type and
 * id replaces the part's data in the client's message (a node's start, then its end).
 */
export type RunDataChunk =
  | { readonly type: 'data-node'; readonly id: string; readonly data: NodePartData }
  | { readonly type: 'data-budget'; readonly id: string; readonly data: BudgetPartData }
  | { readonly type: 'data-checkpoint'; readonly id: string; readonly data: CheckpointPartData }
  | { readonly type: 'data-signoff'; readonly id: string; readonly data: SignOffPartData }
  | { readonly type: 'data-wait'; readonly id: string; readonly data: WaitPartData };

/** A node of the run's tree: a workflow, step, task or agent call. */
export interface NodePartData {
  readonly nodeId: string;
  /** The workflow the node belongs to (the node itself, for a workflow). */
  readonly workflowId: string;
  readonly kind: 'workflow' | 'step' | 'task' | 'agent';
  readonly name: string;
  /** `running` until it ends; `interrupted` when its process stopped before it ended. */
  readonly status: string;
  /** Epoch ms. */
  readonly startedAt: number;
  readonly durationMs?: number;
  /** An agent call's tokens and cost. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd?: number };
  /** A step served from the store when its run resumed: it ran in an earlier process. */
  readonly replayed?: boolean;
}

export interface BudgetPartData {
  readonly state: 'warning' | 'exceeded';
  readonly budgetPath: string;
  readonly dimension: string;
  readonly limit: number;
  readonly spent: number;
  readonly reserved: number;
}

export interface CheckpointPartData {
  readonly nodeId: string;
  readonly agentName: string;
  readonly revision: number;
  readonly assessment: string;
  readonly checkpoint: unknown;
}

export interface SignOffPartData {
  readonly goal: string;
  readonly verdict: 'accept' | 'reject';
  readonly missing: string;
}

export interface WaitPartData {
  readonly name: string;
  readonly state: 'waiting' | 'received' | 'rejected';
  /** Epoch ms, when the wait has a timeout. */
  readonly timeoutAt?: number;
  /** Why a signal was rejected. */
  readonly reason?: string;
}

/** A chunk with its place in the run's stream: send `id` back (`Last-Event-ID`) to go on after it. */
export interface RunChunk {
  readonly id: string;
  readonly chunk: UIChunk;
}
