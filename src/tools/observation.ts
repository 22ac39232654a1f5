import type { VerifierOutcome } from '../types/trajectory.js';

/** What a tool does to the world, declared on the tool so the assessment can reason about it. */
export type ToolEffect = 'read' | 'mutate' | 'verify';

/** One sanitised, bounded fact about the run, tied to where it came from. */
export interface Observation {
  /** 1-based model turn whose tool calls produced it. */
  readonly turn: number;
  /** Total tool calls so far in the run (1-based): the cadence clock, which loops cannot reset. */
  readonly seq: number;
  readonly kind: 'tool_result' | 'tool_failure' | 'synthetic_block' | 'child_result';
  readonly toolName: string;
  readonly effect?: ToolEffect;
  /** The file or resource the call touched, when the tool declares one. */
  readonly target?: string;
  /** Hash of the call's input: a changed payload for the same target shows as a new hash. */
  readonly inputHash: string;
  /** Hash of the result content. */
  readonly outputHash: string;
  /** A short, sanitised description of the result. */
  readonly summary: string;
  /** For `verify` tools: how the check came out; `unknown` is an open question, not a failure. */
  readonly outcome?: VerifierOutcome;
  /** Served from a cache or a replay: never fresh evidence of the current state. */
  readonly fromCache?: boolean;
}

/** The evidence label of an observation, e.g. `[turn 3/tool_result]`. */
export function evidenceLabel(observation: Observation): string {
  return `[turn ${observation.turn}/${observation.kind}]`;
}
