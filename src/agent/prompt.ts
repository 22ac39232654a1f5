import type { z } from 'zod';
import type { AgentSettings } from './agent-settings.js';
import { UsageError } from '../errors/groundswell-error.js';
import { nextId } from '../util/ids.js';
import { validatePromptConfig } from './config/prompt-config.schema.js';
import type { Budget } from '../types/budget.js';
import { deepFreeze } from '../util/deep-freeze.js';

export interface PromptConfig<S extends z.ZodType> extends AgentSettings {
  /** The user message. */
  user: string;
  /** Structured input, sent with the user message as JSON. */
  data?: Readonly<Record<string, unknown>>;
  /** The zod schema the answer must satisfy; `agent.prompt()` resolves to its output type. */
  responseFormat: S;
  /** A label for the tree (default: the start of the user message). */
  name?: string;
  /** Limits on each call of this prompt, held together with the agent's and every enclosing budget. */
  budget?: Budget;
}

/** An immutable request: what to ask and what shape the answer must have. Execution is the agent's. */
export class Prompt<T = unknown> {
  readonly id: string;
  readonly name: string;
  readonly user: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly responseFormat: z.ZodType<T>;
  /** The prompt's own setting overrides (the most specific layer of the cascade). */
  readonly settings: Readonly<AgentSettings>;
  /** Limits on each call of this prompt (not a setting of the cascade: every budget holds). */
  readonly budget: Readonly<Budget> | undefined;

  constructor(config: PromptConfig<z.ZodType<T>>) {
    validatePromptConfig(config);
    const { user, data, responseFormat, name, budget, ...settings } = config;
    this.id = nextId('prompt');
    this.user = user;
    this.name = name ?? defaultPromptName(user);
    this.data = frozenCopy(data ?? {});
    this.responseFormat = responseFormat;
    this.settings = Object.freeze(stripUndefined(settings));
    this.budget = budget === undefined ? undefined : Object.freeze({ ...budget });
    Object.freeze(this);
  }

  /** A new prompt with the user message replaced (everything else kept). */
  withUser(user: string): Prompt<T> {
    return new Prompt<T>({ ...this.settings, user, name: this.name, data: this.data, responseFormat: this.responseFormat, ...this.budgetField() });
  }

  /** A new prompt with `data` replaced (everything else kept). */
  withData(data: Readonly<Record<string, unknown>>): Prompt<T> {
    return new Prompt<T>({ ...this.settings, user: this.user, name: this.name, data, responseFormat: this.responseFormat, ...this.budgetField() });
  }

  private budgetField(): { budget?: Budget } {
    return this.budget === undefined ? {} : { budget: this.budget };
  }
}

/** The name of a prompt that was given none: the start of its user message. */
export function defaultPromptName(user: string): string {
  return user.length > 40 ? `${user.slice(0, 37)}...` : user;
}

/** `createPrompt({ user, data, responseFormat: z.object(...) })`, typed by the schema's output. */
export function createPrompt<S extends z.ZodType>(config: PromptConfig<S>): Prompt<z.output<S>> {
  return new Prompt<z.output<S>>(config as PromptConfig<z.ZodType<z.output<S>>>);
}

/**
 * A deep, frozen copy as JSON data (which is what is sent): later changes to the caller's objects
 * cannot change the prompt, and the prompt's data cannot be changed through it.
 */
function frozenCopy(data: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(data)) as unknown;
  } catch (cause) {
    throw new UsageError(`Prompt \`data\` must be JSON-serialisable: ${(cause as Error).message}`, { cause });
  }
  return deepFreeze(copy) as Readonly<Record<string, unknown>>;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
