import type { SerializedError } from './serialized-error.js';
import type { StateSnapshot } from './state.js';
import type { WorkflowStatus } from './status.js';
import type { TokenUsage } from './usage.js';
import type { GoalAncestry } from './goal-ancestry.js';
import type { CacheMissInfo } from './cache.js';
import type { TrajectoryCheckpoint, VerifierOutcome } from './trajectory.js';
import type { BudgetStanding } from './budget.js';

/** Fields every event carries. `nodeId` is the node the event happened on. */
export interface EventBase {
  /** A process-wide increasing sequence number: unique, and orders events across nodes. */
  readonly id: number;
  readonly nodeId: string;
  readonly workflowId: string;
  readonly timestamp: number;
}

export interface WorkflowStartEvent extends EventBase {
  readonly type: 'workflowStart';
  readonly name: string;
  /**
   * Only in a durable run's stored event log, on the root's start in a process that resumed the
   * run: what it served from the store before its first live work. Their events are not stored
   * again (the process that ran them stored them); observers get the start without it.
   */
  readonly resumed?: ReplayedWork;
}
/** What a resumed durable run served from its store instead of running it again. */
export interface ReplayedWork {
  readonly steps: number;
  readonly calls: number;
  /** Signals its waits took (or refused) again. */
  readonly signals: number;
}
export interface WorkflowEndEvent extends EventBase {
  readonly type: 'workflowEnd';
  readonly name: string;
  readonly status: WorkflowStatus;
  readonly duration: number;
}
export interface ChildAttachedEvent extends EventBase {
  readonly type: 'childAttached';
  readonly childId: string;
  readonly childName: string;
}
export interface ChildDetachedEvent extends EventBase {
  readonly type: 'childDetached';
  readonly childId: string;
  readonly childName: string;
}
export interface TreeUpdatedEvent extends EventBase {
  readonly type: 'treeUpdated';
  readonly rootId: string;
}
export interface StateSnapshotEvent extends EventBase {
  readonly type: 'stateSnapshot';
  readonly state: StateSnapshot;
}
export interface StepStartEvent extends EventBase {
  readonly type: 'stepStart';
  readonly name: string;
}
export interface StepEndEvent extends EventBase {
  readonly type: 'stepEnd';
  readonly name: string;
  readonly status: WorkflowStatus;
  /** Absent when the step was declared with `trackTiming: false`. */
  readonly duration?: number;
  readonly attempts: number;
}
/** A step of a resumed durable run served from the run store; its body did not run again. */
export interface StepReplayedEvent extends EventBase {
  readonly type: 'stepReplayed';
  readonly name: string;
  readonly status: 'completed' | 'failed';
}
/**
 * A durable run waits for a signal (`waitFor`); `signalReceived` when the value arrived;
 * `signalRejected` when a signal's value did not fit the wait's schema (the run keeps waiting).
 */
export interface RunWaitEvent extends EventBase {
  readonly type: 'waitStarted' | 'signalReceived' | 'signalRejected';
  readonly name: string;
  /** When the wait times out (epoch ms), if it has a timeout. */
  readonly timeoutAt?: number;
  /** Why a signal was rejected. */
  readonly reason?: string;
  /** On `waitStarted`, when the wait is a tool call's approval: the call waiting for it. */
  readonly approval?: { readonly toolName: string; readonly toolUseId: string; readonly input: unknown };
}
export interface StepRetryEvent extends EventBase {
  readonly type: 'stepRetry';
  readonly name: string;
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: SerializedError;
}
export interface TaskStartEvent extends EventBase {
  readonly type: 'taskStart';
  readonly name: string;
  readonly concurrent: boolean;
}
export interface TaskEndEvent extends EventBase {
  readonly type: 'taskEnd';
  readonly name: string;
  readonly status: WorkflowStatus;
  readonly duration: number;
  readonly childIds: readonly string[];
}
export interface ErrorEvent extends EventBase {
  readonly type: 'error';
  readonly error: SerializedError;
}
export interface CancelledEvent extends EventBase {
  readonly type: 'cancelled';
  readonly reason: string;
}
/** An observer threw; reported once, and never re-reported if reporting itself throws. */
export interface ObserverErrorEvent extends EventBase {
  readonly type: 'observerError';
  readonly callback: 'onLog' | 'onEvent' | 'onStateUpdated' | 'onTreeChanged';
  readonly error: SerializedError;
}

export interface AgentPromptStartEvent extends EventBase {
  readonly type: 'agentPromptStart';
  readonly agentName: string;
  readonly model: string;
  /** The provider family of a provider model (`openai`, `ollama`); absent for the Anthropic client. */
  readonly provider?: string;
  readonly promptId: string;
  /** The goal ancestry the call was given (present only when there was one). */
  readonly goalAncestry?: GoalAncestry;
}
export interface AgentPromptEndEvent extends EventBase {
  readonly type: 'agentPromptEnd';
  readonly agentName: string;
  readonly model: string;
  readonly promptId: string;
  readonly status: WorkflowStatus;
  readonly duration: number;
  readonly stopReason: string | null;
  /** Tokens of this call (all turns), with cost when a price was configured; zero on a cache hit. */
  readonly usage: TokenUsage;
  readonly turns: number;
  readonly cached: boolean;
  /** Served from a durable run's store on resume (the call had completed before). */
  readonly replayed?: boolean;
  /** The answer as JSON text (truncated for the tree). */
  readonly output?: string;
  readonly error?: SerializedError;
}
/**
 * A piece of an agent call's answer text as the model wrote it, on the call's node. Emitted only
 * in a tree whose workflow has `streamText` on; the pieces of a call, in order, make its text.
 */
export interface AgentTextEvent extends EventBase {
  readonly type: 'agentText';
  readonly agentName: string;
  /** 1-based turn of the call's tool loop. */
  readonly turn: number;
  readonly delta: string;
  /** A piece of the model's reasoning (where it gives it), not of its answer. */
  readonly reasoning?: true;
}
/** A local tool call finished (or was refused by a hook). */
export interface ToolInvocationEvent extends EventBase {
  readonly type: 'toolInvocation';
  readonly toolName: string;
  readonly toolUseId: string;
  readonly input: unknown;
  /** What the model was sent back (truncated for the tree). */
  readonly output: string;
  readonly isError: boolean;
  readonly duration: number;
  /** Why a preToolUse hook refused the call, when it did. */
  readonly blockedReason?: string;
  /** For a tool that needs approval: how the person answered (a denied call did not run). */
  readonly approval?: 'approved' | 'denied';
  /** For a `verify` tool that ran: how it came out (`unknown` when its result could not be read). */
  readonly outcome?: VerifierOutcome;
}
/** Something happened with an MCP server: connected, a tool call finished, closed, or failed. */
export interface McpEvent extends EventBase {
  readonly type: 'mcpEvent';
  readonly server: string;
  readonly phase: 'connected' | 'call' | 'closed' | 'error';
  readonly toolName?: string;
  readonly toolUseId?: string;
  readonly input?: unknown;
  readonly output?: string;
  readonly isError?: boolean;
  readonly duration?: number;
  readonly message?: string;
}
/**
 * One model request of an agent call was answered: emitted on the call's node after each response
 * of its tool loop, so a tracer can show every request. The usages of a call's requests add up to
 * the usage its `agentPromptEnd` reports.
 */
export interface ModelRequestEvent extends EventBase {
  readonly type: 'modelRequest';
  readonly agentName: string;
  /** The provider family of a provider model; absent for the Anthropic client. */
  readonly provider?: string;
  /** 1-based turn of the call's tool loop. */
  readonly turn: number;
  /** The model asked for; `model` is the one that answered (the API may answer an alias with a dated id). */
  readonly requestModel: string;
  readonly model: string;
  /** When the request was sent (the workflow clock); the event's `timestamp` is when its answer arrived. */
  readonly startTime: number;
  readonly duration: number;
  /** Why the answer ended, in Anthropic's words (`tool_use`, `end_turn`) on either path. */
  readonly stopReason: string | null;
  /** A provider model's own word for it (`tool_calls`, `stop`), when it gave one; absent for the Anthropic client. */
  readonly providerStopReason?: string;
  /** Tokens of this request alone, with cost when a price was configured. */
  readonly usage: TokenUsage;
}
/** One HTTP attempt of a model request failed (the SDK may retry it: each attempt is an event). */
export interface ApiErrorEvent extends EventBase {
  readonly type: 'apiError';
  readonly agentName: string;
  /** 1-based attempt within this model request. */
  readonly attempt: number;
  /** HTTP status, or null when the connection failed or timed out. */
  readonly status: number | null;
  /** The API's own error message when its error body has one, else the HTTP status text or the connection error. */
  readonly message: string;
  /** The API's error type (`rate_limit_error`, `overloaded_error`, ...) when its error body names one. */
  readonly errorType?: string;
}
export interface CacheHitEvent extends EventBase {
  readonly type: 'cacheHit';
  readonly agentName: string;
  readonly key: string;
}
/** A call the cache did not answer, and why (see CacheMissReason and CacheMissInfo). */
export interface CacheMissEvent extends EventBase, CacheMissInfo {
  readonly type: 'cacheMiss';
  readonly agentName: string;
}

/**
 * A cache store failed (its server down or too slow) and the call went on without it: a failed
 * `lookup` is a miss (`unavailable`), a failed `set` leaves the answer unsaved. A warning, never a failure.
 */
export interface CacheStoreErrorEvent extends EventBase {
  readonly type: 'cacheStoreError';
  readonly agentName: string;
  readonly operation: 'lookup' | 'set' | 'bust';
  readonly key: string;
  readonly message: string;
}

/** A reflection pass started on a failed attempt (level: where reflection was enabled). */
export interface ReflectionStartEvent extends EventBase {
  readonly type: 'reflectionStart';
  readonly level: 'prompt' | 'agent' | 'workflow';
  readonly attempt: number;
  readonly error: SerializedError;
}
/** A reflection pass ended: its critique and the revision applied to the next attempt, or why it failed. */
export interface ReflectionEndEvent extends EventBase {
  readonly type: 'reflectionEnd';
  readonly level: 'prompt' | 'agent' | 'workflow';
  readonly attempt: number;
  readonly status: WorkflowStatus;
  readonly critique?: string;
  readonly revision?: { readonly user: string | null; readonly guidance: string };
  readonly error?: SerializedError;
}

/** An agent call's result was replaced by a new call (`ctx.replaceLastPromptResult`). */
export interface PromptReplacedEvent extends EventBase {
  readonly type: 'promptReplaced';
  /** The earlier agent-prompt node, now beneath this one. */
  readonly replacedNodeId: string;
}

/** The trajectory checkpoint of an agent call changed (same content: no event). */
export interface TrajectoryCheckpointEvent extends EventBase {
  readonly type: 'trajectoryCheckpoint';
  readonly agentName: string;
  readonly revision: number;
  readonly assessment: TrajectoryCheckpoint['assessment'];
  /** Whether it was injected into the request (false in shadow mode or when unchanged). */
  readonly injected: boolean;
  readonly checkpoint: TrajectoryCheckpoint;
}

/** Older turns of an agent's tool loop were compacted to stay within its context budget. */
export interface ContextCompactedEvent extends EventBase {
  readonly type: 'contextCompacted';
  readonly agentName: string;
  readonly turn: number;
  readonly droppedTurns: number;
  readonly strategy: 'drop' | 'summarize';
  readonly beforeChars: number;
  readonly afterChars: number;
}

/** A goal of a plan was signed off (or refused) by the read-only judge. */
export interface GoalSignOffEvent extends EventBase {
  readonly type: 'goalSignOff';
  readonly goal: string;
  readonly verdict: 'accept' | 'reject';
  readonly missing: string;
  readonly judgeFailed: boolean;
  readonly planPath: string;
}

/**
 * An agent has `pricing` but no price for the model of its call, so that call's cost is unknown
 * (shown as none). A warning, emitted once per agent and model.
 */
export interface PricingMissingEvent extends EventBase {
  readonly type: 'pricingMissing';
  readonly agentName: string;
  /** The model asked for (the one a price was looked up for). */
  readonly model: string;
}

/** A budget's spent plus reserved first reached its `warnAt` share of a limit (once per limit). */
export interface BudgetWarningEvent extends EventBase, BudgetStanding {
  readonly type: 'budgetWarning';
  readonly warnAt: number;
}

/** A budget refused a model request or tool call (it could have passed a limit), or its wallMs ran out. */
export interface BudgetExceededEvent extends EventBase, BudgetStanding {
  readonly type: 'budgetExceeded';
}

/**
 * A model request waits for its budgets instead of being refused, on the agent call's node.
 * `phase: 'start'`: it fits below the limit, but not beside what requests in flight hold or
 * behind requests already waiting (`reason: 'inFlight'`), or its model has not answered under
 * this budget yet and one request to it is in flight (`'firstAnswer'`). `phase: 'end'`: it stopped
 * waiting (`outcome`). The standing is the limit it waited for, as last seen.
 */
export interface BudgetWaitingEvent extends EventBase, BudgetStanding {
  readonly type: 'budgetWaiting';
  readonly phase: 'start' | 'end';
  readonly reason: 'inFlight' | 'firstAnswer';
  /** On `end`: `sent` (it reserved and went out), `refused` (it could never fit) or `cancelled` (the call stopped first). */
  readonly outcome?: 'sent' | 'refused' | 'cancelled';
}

/**
 * A model answer's usage could not be booked as reported: it was missing or not a count (the
 * budgets above the call booked the request's reservation instead), or its output passed the
 * request's `maxTokens` (booked as reported, and those budgets refuse all further work). Emitted
 * on the agent call's node, only when a budget encloses the call.
 */
export interface BudgetUsageUnreliableEvent extends EventBase {
  readonly type: 'budgetUsageUnreliable';
  readonly agentName: string;
  readonly reason: 'missing' | 'malformed' | 'beyond-max-tokens';
  /** The provider the request went to (`anthropic`, `openai`, ...). */
  readonly provider: string;
  /** The model that answered (the one asked for when the answer could not be read). */
  readonly model: string;
  /** The request's output cap. */
  readonly maxTokens: number;
  /** The figures as the answer gave them: null when absent, NaN (null in JSON) when not a number; none when the answer could not be read. */
  readonly reported?: ReportedUsage;
  /** Output tokens over `maxTokens` ('beyond-max-tokens' only). */
  readonly excess?: number;
  /** What the budgets booked for the request. */
  readonly booked: { readonly usd: number; readonly tokens: number };
  /** What was wrong, in words. */
  readonly detail: string;
}

/** Usage figures of one answer as they came. */
export interface ReportedUsage {
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly cacheCreationInputTokens: number | null;
  readonly cacheReadInputTokens: number | null;
}

export type WorkflowEvent =
  | WorkflowStartEvent
  | WorkflowEndEvent
  | ChildAttachedEvent
  | ChildDetachedEvent
  | TreeUpdatedEvent
  | StateSnapshotEvent
  | StepStartEvent
  | StepEndEvent
  | StepRetryEvent
  | StepReplayedEvent
  | RunWaitEvent
  | TaskStartEvent
  | TaskEndEvent
  | ErrorEvent
  | CancelledEvent
  | ObserverErrorEvent
  | AgentPromptStartEvent
  | AgentPromptEndEvent
  | ModelRequestEvent
  | AgentTextEvent
  | ToolInvocationEvent
  | McpEvent
  | ApiErrorEvent
  | PromptReplacedEvent
  | TrajectoryCheckpointEvent
  | ContextCompactedEvent
  | GoalSignOffEvent
  | ReflectionStartEvent
  | ReflectionEndEvent
  | CacheHitEvent
  | CacheMissEvent
  | CacheStoreErrorEvent
  | PricingMissingEvent
  | BudgetWarningEvent
  | BudgetExceededEvent
  | BudgetWaitingEvent
  | BudgetUsageUnreliableEvent;

export type WorkflowEventType = WorkflowEvent['type'];

/** The payload a producer supplies; the tree fills in id, nodeId, workflowId and timestamp. */
export type EventPayload<E extends WorkflowEvent = WorkflowEvent> = E extends WorkflowEvent
  ? Omit<E, keyof EventBase>
  : never;
