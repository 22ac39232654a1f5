import { requestText, type CacheKeyInput } from '../cache/cache-key.js';
import type { PromptCall } from './prompt-call.js';

/** The request text of a prompt's key, and the values it was built from besides the prompt. */
interface Memo {
  readonly inputs: readonly unknown[];
  readonly text: string;
}

// One entry per prompt: a prompt is frozen (user text, data, schema), so only the rest can differ.
const memos = new WeakMap<object, Memo>();

/**
 * The {@link requestText} of a call's key input (built by `input`), reused from the prompt's
 * previous call when everything else the text covers is the same. That is compared value by value
 * on every call (system text, model, sampling, plan text, each skill's fields), tools by identity
 * (frozen tools cannot change). Calls with MCP servers or an unfrozen tool are not memoised.
 */
export function callRequestText<T>(
  call: PromptCall<T>,
  planText: string | undefined,
  mcps: readonly unknown[],
  input: () => CacheKeyInput,
): string {
  if (mcps.length > 0) return requestText(input());
  const memo = memos.get(call.prompt);
  // Compared in place: a hit of a prompt asked before allocates nothing here.
  if (memo !== undefined && sameInputs(memo.inputs, call, planText)) return memo.text;
  const inputs = inputsOf(call, planText);
  if (inputs === undefined) return requestText(input());
  const text = requestText(input());
  memos.set(call.prompt, { inputs, text });
  return text;
}

/** What the key input takes from outside the prompt, flattened; undefined when it cannot be compared. */
function inputsOf<T>(call: PromptCall<T>, planText: string | undefined): unknown[] | undefined {
  const { plan, settings } = call;
  const out: unknown[] = [plan.system, plan.model, call.model.provider, plan.maxTokens, plan.temperature, planText, plan.stop?.length];
  if (plan.stop !== undefined) out.push(...plan.stop);
  out.push(settings.tools.length);
  for (const tool of settings.tools) {
    if (!Object.isFrozen(tool)) return undefined;
    out.push(tool);
  }
  out.push(settings.skills.length);
  for (const skill of settings.skills) out.push(skill.name, skill.description, skill.content);
  return out;
}

/** Whether `inputsOf(call, planText)` would equal `inputs`, read field by field without building it. */
function sameInputs<T>(inputs: readonly unknown[], call: PromptCall<T>, planText: string | undefined): boolean {
  const { plan, settings } = call;
  const stop = plan.stop;
  let i = 0;
  const next = (value: unknown): boolean => i < inputs.length && inputs[i++] === value;
  if (!(next(plan.system) && next(plan.model) && next(call.model.provider) && next(plan.maxTokens) && next(plan.temperature) && next(planText) && next(stop?.length))) {
    return false;
  }
  if (stop !== undefined) for (const word of stop) if (!next(word)) return false;
  if (!next(settings.tools.length)) return false;
  // A tool that is not frozen was never memoised: it cannot be the same as a stored one.
  for (const tool of settings.tools) if (!Object.isFrozen(tool) || !next(tool)) return false;
  if (!next(settings.skills.length)) return false;
  for (const skill of settings.skills) if (!(next(skill.name) && next(skill.description) && next(skill.content))) return false;
  return i === inputs.length;
}
