import type { z } from 'zod';
import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import type { ToolEffect } from '../trajectory/observation.js';
import type { VerifierOutcome } from '../types/trajectory.js';

/** What a tool's `execute` receives besides its validated input. */
export interface ToolContext {
  /** The agent's `env` for this call only (process.env is never touched). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the workflow running the agent is cancelled. */
  readonly signal: AbortSignal | undefined;
  readonly agentName: string;
  readonly toolUseId: string;
}

/**
 * A local tool: the model sees name, description and the JSON schema of `input`. `R` is what
 * `execute` returns (inferred by `defineTool`), which a `verdict` receives.
 */
export interface Tool<S extends z.ZodType = z.ZodType, R = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  /** What the tool does, for trajectory checkpoints (`read`, `mutate` or `verify`); optional. */
  readonly effect?: ToolEffect;
  /** The file or resource a call touches, for trajectory checkpoints; optional. */
  target?(input: z.output<S>): string | undefined;
  /** The return value is sent to the model (strings as is, anything else as JSON). A throw becomes an `is_error` result. */
  execute(input: z.output<S>, context: ToolContext): R;
  /**
   * For `effect: 'verify'`: how a successful run came out, from what `execute` returned (awaited)
   * and the input. Return `undefined` to leave it to the default reading (a structured result's
   * `outcome`/`passed`/`exitCode`, else the summary lines of common test runners). A throw, or
   * anything but an outcome, counts as `'unknown'`; a run that threw is always `'failed'`.
   */
  verdict?(output: Awaited<R>, input: z.output<S>): VerifierOutcome | undefined;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const EFFECTS: readonly unknown[] = ['read', 'mutate', 'verify'] satisfies readonly ToolEffect[];

/** Declares a tool with its input type inferred from the zod schema (and its result type from `execute`). */
export function defineTool<S extends z.ZodType, R>(tool: Tool<S, R>): Tool<S, R> {
  validateTool(tool);
  return Object.freeze({ ...tool });
}

export function validateTool(tool: unknown): asserts tool is Tool {
  const t = tool as Partial<Tool> | null;
  if (typeof t !== 'object' || t === null) throw new UsageError('A tool must be an object with name, description, input and execute.');
  if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) {
    throw new UsageError(`Tool name ${JSON.stringify(t.name)} must match ${TOOL_NAME} (the API's rule for tool names).`);
  }
  if (typeof t.description !== 'string') throw new UsageError(`Tool "${t.name}" needs a description string.`);
  if (typeof (t.input as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new UsageError(`Tool "${t.name}" needs a zod schema as \`input\`.`);
  }
  if (typeof t.execute !== 'function') throw new UsageError(`Tool "${t.name}" needs an execute function.`);
  if (t.effect !== undefined && !EFFECTS.includes(t.effect)) {
    throw new UsageError(`Tool "${t.name}": effect must be one of ${EFFECTS.join(', ')}, got ${describeValue(t.effect)}.`);
  }
  if (t.verdict !== undefined) {
    if (typeof t.verdict !== 'function') throw new UsageError(`Tool "${t.name}": verdict must be a function (output, input) => 'passed' | 'failed' | 'unknown' | undefined.`);
    // A verdict on a tool that is not a verifier would never be read: say so instead of ignoring it.
    if (t.effect !== 'verify') throw new UsageError(`Tool "${t.name}": verdict reads a verifier's result; declare effect: 'verify'.`);
  }
}
