import './decorators/metadata.js';

export { Workflow } from './core/workflow.js';
export type { WorkflowExecutor } from './core/workflow.js';
export type { WorkflowConfig } from './core/workflow-config.js';
export { createWorkflow } from './core/create-workflow.js';
export type { WorkflowContext } from './core/workflow.js';
export { EventTree } from './core/event-tree.js';
export { WorkflowLogger } from './core/logger.js';
export type { LoggerMeta } from './core/logger.js';
export { getCurrentNode, getCurrentWorkflow, requireCurrentWorkflow, runInContext } from './core/ambient.js';
export { DEFAULT_RETENTION } from './core/retention.js';
export type { RetentionOptions } from './core/retention.js';
export type { ErrorMergeStrategy } from './core/error-merge.js';
export type { RetryOptions, StepOptions } from './core/run-step.js';
export type { TaskOptions, TaskResult } from './core/run-task.js';
export { outcomeOf, resultOf } from './core/child-outcome.js';
export type { ChildOutcome, WorkflowResult, WorkflowResults } from './core/child-outcome.js';
export type { FanOutOptions, ItemOutcome, SettleMode } from './core/fan-out.js';
export { REDACTED } from './core/state.js';

export { Step } from './decorators/step.js';
export type { StepDecorator } from './decorators/step.js';
export { Task } from './decorators/task.js';
export type { TaskDecorator } from './decorators/task.js';
export { ObservedState } from './decorators/observed-state.js';
export type { FieldDecorator, ObservedStateOptions } from './decorators/observed-state.js';

export { Agent, createAgent } from './agent/agent.js';
export type { AgentConfig, AgentResult } from './agent/agent.js';
export { AGENT_DEFAULTS } from './agent/agent-settings.js';
export type { AgentSettings, PromptOverrides, ResolvedSettings, StructuredOutputMode } from './agent/agent-settings.js';
export type { LanguageModelLike } from './agent/model/language-model.js';
export type { ModelProvider, ModelProviders } from './types/model-providers.js';
export { AgentStream } from './agent/agent-stream.js';
export { AgentError, AgentLoopStoppedError, HookError, MalformedResponseError, MaxTurnsExceededError, ProviderApiError, StructuredOutputError } from './agent/agent-errors.js';
export type { HookName, OutputIssue } from './agent/agent-errors.js';
export type { AgentHooks, HookContext, PreToolUseDecision } from './agent/hooks.js';
export type { ModelPrice, Pricing } from './agent/pricing.js';
export type { AgentStreamEvent } from './agent/prompt-call.js';
export type { ToolCallRecord } from './agent/tool-call-record.js';
export type { Skill } from './agent/skill.js';
export type { GoalAncestry } from './types/goal-ancestry.js';
export { DEFAULT_REFLECTION_ATTEMPTS } from './agent/config/reflection-config.js';
export type { ReflectionLevel, ReflectionOptions, ReflectionSetting } from './agent/config/reflection-config.js';
export { ReflectionFailedError } from './reflection/reflection-failed-error.js';
export type { Revision } from './agent/revision.js';
export type { WorkflowReflectionOptions } from './reflection/step-reflection.js';
// Features (reflection, trajectory, plans, durable runs) plug into the layers that host them here.
import { installFeatures } from './install.js';
installFeatures();
export { resume } from './durable/runtime/resume.js';
export type { DurableFactoryContext, ResumeOptions, WorkflowFactory as DurableWorkflowFactory } from './durable/runtime/resume.js';
export { signal } from './durable/runtime/signal.js';
export type { SignalOptions } from './durable/runtime/signal.js';
export { runIdOf } from './durable/runtime/run-durably.js';
export { idempotencyKey } from './durable/runtime/idempotency-key.js';
export { ReplayMismatchError, ReplayedStepError, RunFinishedError, SignalNameError, SignalValueError, WaitTimeoutError } from './durable/runtime/replay-errors.js';
export { RunInterruptedError } from './durable/runtime/run-interrupted-error.js';
export type { DurableSetting, DurableStore } from './core/durable-setting.js';
export type { WaitOptions, WaitSchema } from './core/run-journal.js';
export {
  DEFAULT_INTROSPECTION_MAX_CHARS,
  INTROSPECTION_TOOL_NAMES,
  introspectionTools,
} from './introspection/introspection-tools.js';
export type { IntrospectionToolName, IntrospectionToolsOptions } from './introspection/introspection-tools.js';
export { defineSpawnableWorkflow } from './introspection/spawn-workflow.js';
export type { SpawnableWorkflow, SpawnedWorkflow, WorkflowFactory, WorkflowRegistry } from './introspection/spawn-workflow.js';
export { DEFAULT_SPAWN_ANSWER } from './introspection/spawn-agent.js';
export type { AgentRegistry, SpawnableAgent, SpawnedAgentCall } from './introspection/spawn-agent.js';
export { DEFAULT_SPAWN_LIMITS } from './introspection/spawn-limits.js';
export type { SpawnLimits } from './introspection/spawn-limits.js';
export { IntrospectionError } from './introspection/introspection-error.js';
export { SpawnLimitError } from './introspection/spawn-limit-error.js';
export type { SpawnLimitName } from './introspection/spawn-limit-error.js';
export type { CheckpointMode, CompactionStrategy, ContextBudget, GroundingMode, TrajectoryOptions } from './agent/config/trajectory-config.js';
export type { Observation, ToolEffect } from './tools/observation.js';
export type { GroundedFact, TrajectoryAssessment, TrajectoryCheckpoint, VerifierOutcome } from './types/trajectory.js';
export { readRunnerOutput } from './tools/runner-output.js';
export type { RunnerReading } from './tools/runner-output.js';
export { Prompt, createPrompt } from './agent/prompt.js';
export type { PromptConfig } from './agent/prompt.js';
export { defineTool } from './tools/tool.js';
export type { Tool, ToolContext } from './tools/tool.js';
// What an agent's `enableCache` and the cache events name. Stores and key utilities are the
// `groundswell/cache` entry.
export type { CacheKeyPart, CacheMissInfo, CacheMissReason } from './types/cache.js';
export type { CacheOptions, CacheSetting } from './cache/cache-options.js';
export type { IgnorableCacheKeyPart } from './cache/cache-key-parts.js';

// Integrations are their own entries: `groundswell/mcp` (connectMcp, server config types,
// McpConnectionError), `groundswell/plans` (plans, sign-off, the judge's read-only tools),
// `groundswell/cache` (stores, key utilities), `groundswell/testing` (the offline model kit).
// Prompt wording and algorithms (checkpoint rendering and assessment, canonical JSON, the judge's
// texts and verdict parser) are not exported: they change without a major version.

export { WorkflowTreeDebugger } from './debugger/tree-debugger.js';
export { usageById, usageRollup } from './debugger/usage-rollup.js';
export { exportRun, parseRunExport, RunExportError } from './debugger/run-export.js';
export type { TreeStats } from './debugger/stats.js';
export type { TreeStringOptions } from './debugger/tree-string.js';
export { progressDisplay } from './progress/progress-display.js';
export type { ProgressDisplay, ProgressDisplayOptions, ProgressStream } from './progress/progress-display.js';

export { GroundswellError, UsageError } from './errors/groundswell-error.js';
// Thrown when a call has MCP servers but the optional MCP SDK is not installed;
// here, not in groundswell/mcp, because that entry cannot load without the SDK.
export { McpSdkMissingError } from './mcp/mcp-sdk-missing-error.js';
export { MergedWorkflowError, RunSuspendedError, WorkflowCancelledError, WorkflowError } from './errors/workflow-error.js';
export type { WorkflowErrorDetails } from './errors/workflow-error.js';
export { isRetryable, isSuspension, isWorkflowError } from './errors/predicates.js';
export { BudgetExceededError } from './budgets/budget-exceeded-error.js';
export type { Budget, BudgetDimension, BudgetRaise, BudgetStanding } from './types/budget.js';

export type {
  CancelledEvent,
  ChildAttachedEvent,
  ChildDetachedEvent,
  ErrorEvent,
  EventBase,
  EventPayload,
  ObserverErrorEvent,
  StateSnapshotEvent,
  StepEndEvent,
  StepRetryEvent,
  StepReplayedEvent,
  RunWaitEvent,
  StepStartEvent,
  TaskEndEvent,
  TaskStartEvent,
  TreeUpdatedEvent,
  WorkflowEndEvent,
  WorkflowEvent,
  WorkflowEventType,
  WorkflowStartEvent,
  ReplayedWork,
  AgentPromptStartEvent,
  AgentPromptEndEvent,
  ModelRequestEvent,
  AgentTextEvent,
  ToolInvocationEvent,
  McpEvent,
  ApiErrorEvent,
  ReflectionStartEvent,
  PromptReplacedEvent,
  TrajectoryCheckpointEvent,
  ContextCompactedEvent,
  GoalSignOffEvent,
  ReflectionEndEvent,
  CacheHitEvent,
  CacheMissEvent,
  CacheStoreErrorEvent,
  PricingMissingEvent,
  BudgetWarningEvent,
  BudgetExceededEvent,
  BudgetUsageUnreliableEvent,
  BudgetWaitingEvent,
  ReportedUsage,
} from './types/events.js';
export type { TokenUsage } from './types/usage.js';
export type { LogEntry, LogLevel } from './types/logging.js';
export type { WorkflowNode } from './types/node.js';
export type { Unsubscribe, WorkflowObserver } from './types/observer.js';
export type { RunExport, SerializedBudget, SerializedNode, StateSnapshot } from './types/serialized.js';
export type { NodeKind, WorkflowStatus } from './types/status.js';
export type { Clock } from './util/clock.js';
export { systemClock } from './util/clock.js';
export { Observable } from './util/observable.js';
export type { Observer, Subscription } from './util/observable.js';
export type { SerializedError } from './util/serialize-error.js';
