import type { Prompt } from './prompt.js';

/** What a reflection pass decided: why the attempt failed and what to change for the next one. */
export interface Revision {
  readonly critique: string;
  /** A rewritten user message, or null to keep it. */
  readonly user: string | null;
  /** Guidance added to the system prompt of the retry. */
  readonly guidance: string;
}

/** What reflects: any agent (structurally: a reflection pass needs only `prompt`). */
export interface Reflector {
  prompt<T>(prompt: Prompt<T>): Promise<T>;
}
