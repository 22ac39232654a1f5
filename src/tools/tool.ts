import type { z } from 'zod';
import type { ToolEffect } from '../trajectory/observation.js';
import { validateToolDefinition } from '../validation/tool-definition.js';

/** What a tool's `execute` receives besides its validated input. */
export interface ToolContext {
  /** The agent's `env` for this call only (process.env is never touched). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the workflow running the agent is cancelled. */
  readonly signal: AbortSignal | undefined;
  readonly agentName: string;
  readonly toolUseId: string;
}

/** A local tool: the model sees name, description and the JSON schema of `input`. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  /** What the tool does, for trajectory checkpoints (`read`, `mutate` or `verify`); optional. */
  readonly effect?: ToolEffect;
  /** The file or resource a call touches, for trajectory checkpoints; optional. */
  target?(input: z.output<S>): string | undefined;
  /** The return value is sent to the model (strings as is, anything else as JSON). A throw becomes an `is_error` result. */
  execute(input: z.output<S>, context: ToolContext): unknown;
}

/** Declares a tool with its input type inferred from the zod schema. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  validateTool(tool);
  return Object.freeze({ ...tool });
}

/** Throws a UsageError naming the field when `tool` is not a valid tool. */
export function validateTool(tool: unknown): asserts tool is Tool {
  validateToolDefinition(tool);
}
