import type { PromptInterceptor } from '../prompt-call.js';
import { runHook } from '../run-hook.js';
import { hookBase } from '../run-model.js';

/** sessionStart before the call, sessionEnd after it — also when it fails (the failure wins). */
export const hooksInterceptor: PromptInterceptor = async (call, next) => {
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
};
