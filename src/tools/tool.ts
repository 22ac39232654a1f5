import type { z } from 'zod';
import type { ToolEffect } from './observation.js';
import type { VerifierOutcome } from '../types/trajectory.js';
import { validateToolDefinition } from './tool-definition.js';

/** What a tool's `execute` receives besides its validated input. */
export interface ToolContext {
  /** The agent's `env` for this call only (process.env is never touched). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the workflow running the agent is cancelled. */
  readonly signal: AbortSignal | undefined;
  readonly agentName: string;
  readonly toolUseId: string;
}

/** A method's parameter check (bivariant), so a tool of any input still fits `Tool`. */
type ApprovalTest<I> = { check(input: I): boolean | Promise<boolean> }['check'];

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
  /**
   * Whether a call must be approved by a person before it runs: `true`, or a test of the input
   * (a throw counts as yes). The call becomes a durable wait for the signal
   * `approval of <name> (<tool use id>)` with `{ approved, reason? }`; a denied call is not run and
   * the model is told it was denied. Needs a durable run.
   */
  readonly needsApproval?: boolean | ApprovalTest<z.output<S>>;
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

/** Declares a tool with its input type inferred from the zod schema (and its result type from `execute`). */
export function defineTool<S extends z.ZodType, R>(tool: Tool<S, R>): Tool<S, R> {
  validateTool(tool);
  return Object.freeze({ ...tool });
}

/** Throws a UsageError naming the field when `tool` is not a valid tool. */
export function validateTool(tool: unknown): asserts tool is Tool {
  validateToolDefinition(tool);
}
