import { isRetryable } from '../errors/predicates.js';
import { reflectionAttempts, type ReflectionLevel } from '../agent/config/reflection-config.js';
import { ReflectionFailedError } from './reflection-failed-error.js';
import { reflect } from './reflection-pass.js';
import type { PromptCall, PromptHandler, PromptInterceptor, PromptOutcome } from '../agent/prompt-call.js';

/**
 * Prompt- and agent-level reflection: when an attempt fails with an error a retry could fix, a
 * reflection pass critiques it and the revision (rewritten request, guidance in the system
 * prompt) is what the next attempt sends. Bounded by `maxAttempts`; auth and invalid-request
 * errors, and a reflection pass that itself fails, end it.
 */
export const reflectionInterceptor: PromptInterceptor = (call, next) => {
  const setting = call.settings.enableReflection;
  // Off (unset or false), the usual case: no level or label is worked out.
  if (setting === undefined || setting === false) return next(call);
  const level: ReflectionLevel = call.prompt.settings.enableReflection !== undefined ? 'prompt' : 'agent';
  let attempts: number;
  try {
    attempts = reflectionAttempts(setting, `${level} of agent "${call.agentName}"`);
  } catch (error) {
    return Promise.reject(error);
  }
  // Without retries the call passes straight through: no extra promise around it.
  return attempts <= 1 ? next(call) : withRetries(call, next, level, attempts);
};

async function withRetries<T>(call: PromptCall<T>, next: PromptHandler, level: ReflectionLevel, attempts: number): Promise<PromptOutcome<T>> {
  let current = call;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await next(current);
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error) || error instanceof ReflectionFailedError) throw error;
      const revision = await reflect(call.reflector(), { level, attempt, task: describeTask(current), error }, call.budgets);
      current = current.revise(revision);
    }
  }
}

function describeTask<T>(call: PromptCall<T>): string {
  const system = call.plan.system === undefined ? '' : `<system>\n${call.plan.system}\n</system>\n\n`;
  return `${system}<request>\n${call.plan.userContent}\n</request>`;
}
