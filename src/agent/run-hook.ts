import { describeValue, errorMessage, safeString } from '../util/describe.js';
import { HookError, type HookName } from './agent-errors.js';
import type { AgentHooks, HookContext, PreToolUseDecision } from './hooks.js';

/**
 * Runs one hook, if set. Whatever it throws (a non-Error, a revoked proxy, an error with
 * throwing getters) becomes a `HookError` naming the hook, so the call fails with a typed error
 * and every layer above can describe it.
 */
export async function runHook(hooks: AgentHooks, hook: HookName, context: HookContext): Promise<unknown> {
  try {
    const fn = hooks[hook] as ((context: HookContext) => unknown) | undefined;
    if (fn === undefined) return undefined;
    return await fn.call(hooks, context);
  } catch (error) {
    throw new HookError(`Hook ${hook} of agent "${context.agentName}" threw: ${errorMessage(error)}`, context.agentName, hook, {
      cause: error,
    });
  }
}

/** preToolUse, with its decision read defensively: only `{ block: true }` refuses the call. */
export async function runPreToolUse(hooks: AgentHooks, context: HookContext): Promise<PreToolUseDecision> {
  const decision = await runHook(hooks, 'preToolUse', context);
  if (decision === undefined || decision === null || typeof decision !== 'object') return undefined;
  try {
    if ((decision as { block?: unknown }).block !== true) return undefined;
    const reason = (decision as { reason?: unknown }).reason;
    return { block: true, reason: typeof reason === 'string' ? reason : safeString(reason) };
  } catch (error) {
    throw new HookError(
      `Hook preToolUse of agent "${context.agentName}" returned a decision that cannot be read (${describeValue(decision)}).`,
      context.agentName,
      'preToolUse',
      { cause: error },
    );
  }
}
