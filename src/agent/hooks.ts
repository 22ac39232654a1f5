/**
 * The one context shape every hook receives. Fields that do not apply to a hook are absent:
 * `tool*` only in pre/postToolUse, `result`/`error` only after the work they describe.
 */
export interface HookContext {
  readonly agentName: string;
  readonly promptId: string;
  readonly model: string;
  /** The agent-prompt node in the tree, when the call runs inside a workflow. */
  readonly nodeId: string | undefined;
  readonly workflowId: string | undefined;
  /** 1-based model turn the hook belongs to (0 for sessionStart). */
  readonly turn: number;
  readonly toolName?: string;
  readonly toolUseId?: string;
  readonly toolInput?: unknown;
  /** postToolUse: what the tool returned (as sent to the model); sessionEnd: the final value. */
  readonly result?: unknown;
  readonly isError?: boolean;
  /** sessionEnd after a failure. */
  readonly error?: unknown;
}

/** A preToolUse hook may refuse a call; the model then gets an `is_error` result with the reason. */
export type PreToolUseDecision = void | undefined | { block: true; reason: string };

/**
 * Hooks around one agent call, always in this order: sessionStart, then per tool call
 * preToolUse and postToolUse, then sessionEnd (also when the call fails). postToolUse also runs
 * for a call preToolUse refused, with the refusal as its (error) result.
 */
export interface AgentHooks {
  sessionStart?(context: HookContext): void | Promise<void>;
  preToolUse?(context: HookContext): PreToolUseDecision | Promise<PreToolUseDecision>;
  postToolUse?(context: HookContext): void | Promise<void>;
  sessionEnd?(context: HookContext): void | Promise<void>;
}
