import type { AgentHooks } from '../hooks.js';
import type { PromptCall, PromptHandler, PromptInterceptor, PromptOutcome } from '../prompt-call.js';
import { runHook } from '../run-hook.js';
import { hookBase } from '../loop/tool-round.js';

/**
 * sessionStart before the call, sessionEnd after it — also when it fails (the failure wins).
 * Without either hook the call passes straight through: no hook contexts, no awaits.
 */
export const hooksInterceptor: PromptInterceptor = (call, next) =>
  hasSessionHooks(call.settings.hooks) ? withSessionHooks(call, next) : next(call);

/** Whether either session hook is set; a hooks object that cannot be read takes the full path, whose runHook reports it. */
function hasSessionHooks(hooks: AgentHooks): boolean {
  try {
    return hooks.sessionStart !== undefined || hooks.sessionEnd !== undefined;
  } catch {
    return true;
  }
}

async function withSessionHooks<T>(call: PromptCall<T>, next: PromptHandler): Promise<PromptOutcome<T>> {
  const hooks = call.settings.hooks;
  let outcome;
  try {
    await runHook(hooks, 'sessionStart', hookBase(call, 0));
    outcome = await next(call);
  } catch (error) {
    try {
      await runHook(hooks, 'sessionEnd', { ...hookBase(call, call.meter.turns), error, isError: true });
    } catch {
      // The call's own failure is what the caller needs to see.
    }
    throw error;
  }
  await runHook(hooks, 'sessionEnd', { ...hookBase(call, outcome.turns), result: outcome.value, isError: false });
  return outcome;
}
