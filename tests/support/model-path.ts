import type Anthropic from '@anthropic-ai/sdk';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, it } from 'vitest';
import type { LanguageModelLike } from 'groundswell';
import { serveChatCompletions, type ChatCompletionsServer, type ScriptedModel } from 'groundswell/testing';

/**
 * Which way the agent suites reach their scripted model. `GROUNDSWELL_TEST_MODEL_PATH=provider`
 * runs them through `@ai-sdk/openai-compatible` against a loopback Chat Completions server
 * answering from the same script; unset (or `native`) uses the Anthropic SDK client.
 */
const PATH = process.env.GROUNDSWELL_TEST_MODEL_PATH ?? 'native';
if (PATH !== 'native' && PATH !== 'provider' && PATH !== '') {
  throw new Error(`GROUNDSWELL_TEST_MODEL_PATH must be "native" or "provider", got "${PATH}"`);
}

/** True when this run drives the agents through the AI SDK provider path. */
export const providerPath: boolean = PATH === 'provider';

/**
 * For tests of what only the Anthropic path has (its wire format: `cache_control`,
 * `output_config`, `thinking`, SSE events; its SDK's error classes and client options). Each
 * use says why in a comment.
 */
export const nativeOnly = it.skipIf(providerPath);
/** `nativeOnly` for a whole describe block. */
export const describeNativeOnly = describe.skipIf(providerPath);

/** The model id the loopback server answers as (and the provider sends). */
export const PROVIDER_MODEL_ID = 'scripted-model';

/** What to spread into `createAgent`'s config: the native client or a provider model. */
export type AgentModel = { client: Anthropic; model?: string } | { model: LanguageModelLike };

export interface AgentModelOptions {
  /** The model id the agent asks for (default: the agent's default, or `scripted-model` on the provider path). */
  model?: string;
}

const servers = new WeakMap<ScriptedModel, Promise<string>>();
let open: ChatCompletionsServer[] = [];

/**
 * `{ client: model.client() }` on the native path; on the provider path an OpenAI-compatible
 * chat model talking to a loopback server that answers from `model`'s script (one server per
 * scripted model, closed after the test file by tests/support/model-path-setup.ts). Spread it
 * into an agent's config; `options.model` is the model id on either path.
 */
export async function agentModel(model: ScriptedModel, options: AgentModelOptions = {}): Promise<AgentModel> {
  if (!providerPath) return { client: model.client(), ...(options.model === undefined ? {} : { model: options.model }) };
  return { model: await languageModelFor(model, options.model) };
}

/** The provider model for a scripted model: an OpenAI-compatible chat model on its loopback server. */
export async function languageModelFor(model: ScriptedModel, modelId: string = PROVIDER_MODEL_ID): Promise<LanguageModelLike> {
  return chatModel(await serverURL(model), modelId);
}

/**
 * `agentModel` for code that cannot wait (a synchronous workflow builder): on the provider path
 * the loopback server starts on the first request, inside the provider's `fetch`.
 */
export function agentModelSync(model: ScriptedModel, options: AgentModelOptions = {}): AgentModel {
  if (!providerPath) return { client: model.client(), ...(options.model === undefined ? {} : { model: options.model }) };
  const fetchLater = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const base = await serverURL(model);
    const url = (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).replace(PLACEHOLDER_URL, base);
    return fetch(url, init);
  };
  return { model: chatModel(PLACEHOLDER_URL, options.model ?? PROVIDER_MODEL_ID, fetchLater) };
}

/** Where `agentModelSync`'s provider sends requests until its fetch puts the server's address in. */
const PLACEHOLDER_URL = 'http://scripted-server.invalid/v1';

function serverURL(model: ScriptedModel): Promise<string> {
  let baseURL = servers.get(model);
  if (baseURL === undefined) {
    baseURL = serveChatCompletions(model).then((server) => {
      open.push(server);
      return server.baseURL;
    });
    servers.set(model, baseURL);
  }
  return baseURL;
}

function chatModel(baseURL: string, modelId: string, fetchVia?: typeof fetch): LanguageModelLike {
  const provider = createOpenAICompatible({
    name: 'local',
    baseURL,
    supportsStructuredOutputs: true,
    // A capable local server reports usage on streams too; the usage tests read it.
    includeUsage: true,
    ...(fetchVia === undefined ? {} : { fetch: fetchVia }),
  });
  return provider.chatModel(modelId);
}

/**
 * Usage as the agent reports it on this path: Chat Completions has no count of tokens written to
 * the cache, so on the provider path they arrive (and count) as plain input tokens.
 */
export function pathUsage<U extends { inputTokens: number; cacheCreationInputTokens: number }>(usage: U): U {
  if (!providerPath) return usage;
  return { ...usage, inputTokens: usage.inputTokens + usage.cacheCreationInputTokens, cacheCreationInputTokens: 0 };
}

/** Closes every server `agentModel` started (tests/support/model-path-setup.ts, after each file). */
export async function closeModelServers(): Promise<void> {
  const closing = open;
  open = [];
  await Promise.all(closing.map((server) => server.close()));
}

/**
 * A sent tool result's `is_error` for a result the agent flagged (`true`) or not (`false`):
 * Chat Completions tool messages have no error flag, so on the provider path it is absent (the
 * error shows only in the text).
 */
export function sentErrorFlag(isError: boolean): boolean | undefined {
  return providerPath ? undefined : isError;
}

/** The tool_result block a request carries for a result, as the recorded body reads on this path. */
export function sentToolResult(
  toolUseId: string,
  content: string,
  isError = false,
): { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean } {
  const block = { type: 'tool_result' as const, tool_use_id: toolUseId, content };
  return providerPath ? block : { ...block, is_error: isError };
}

/**
 * A request's system text: the Messages path sends a plain string (or blocks, with cache
 * breakpoints), the provider path a system message the server records as one text block.
 */
export function systemText(body: { system?: string | ReadonlyArray<{ text: string }> | undefined }): string | undefined {
  const { system } = body;
  if (system === undefined || typeof system === 'string') return system;
  return system.map((block) => block.text).join('\n\n');
}

/** The provider name the agent reports for the provider model (`local.chat` read as `local`). */
export const PROVIDER_NAME = 'local';

/** How events and prices name a model id on this path: `provider/model` on the provider path. */
export function pricedModel(modelId: string): string {
  return providerPath ? `${PROVIDER_NAME}/${modelId}` : modelId;
}

/** How cache keys and call fingerprints name a model id: with the whole provider id on the provider path. */
export function keyedModel(modelId: string): string {
  return providerPath ? `${PROVIDER_NAME}.chat/${modelId}` : modelId;
}
