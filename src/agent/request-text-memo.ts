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
  const inputs = mcps.length === 0 ? inputsOf(call, planText) : undefined;
  if (inputs === undefined) return requestText(input());
  const memo = memos.get(call.prompt);
  if (memo !== undefined && same(memo.inputs, inputs)) return memo.text;
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

function same(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}
