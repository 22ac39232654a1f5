import { modelKeyOf } from './model/model-key.js';
import { cacheIdentity, entryHeader, type CacheEntryHeader } from '../cache/cache-entry-header.js';
import { cacheKeyFromParts, cacheKeyOfRequest, cacheKeyPartHashes, type CacheKeyInput } from '../cache/cache-key.js';
import type { CacheKeyPartHashes } from '../cache/cache-key-parts.js';
import type { CacheKeyPart } from '../types/cache.js';
import { maskedPromptName } from './masked-prompt-name.js';
import type { PromptCall } from './prompt-call.js';
import { callRequestText } from './request-text-memo.js';
import { localHandler } from './toolset.js';

/** One MCP server as the key covers it: its name and what it offers (read by the caller, lazily). */
export interface McpKeyPart {
  readonly name: string;
  readonly identity: unknown;
}

/** The cache key of one call, and what a miss needs besides it (computed only then). */
export interface CallCacheKey {
  readonly key: string;
  /** SHA-256 per key part; computed on first use, as a hit never needs them. */
  parts(): CacheKeyPartHashes;
  /** `cacheIdentity(agent, prompt name)`: the index a miss looks up the newest related entry by. */
  identity(): string;
  /** The header stored with the answer: names masked, hashes only. */
  header(createdAt: number): CacheEntryHeader;
}

/**
 * Everything the request carries, as the key covers it (`planText`: what the agent's plan watcher
 * sends first, undefined without one; `mcps`: the agent's MCP servers, described). Without an ignore list the key is the
 * whole-input SHA-256 (`cacheKey`, unchanged from before part hashes, so recordings stay valid);
 * with one it is built from the part hashes (`cacheKeyFromParts`).
 */
export function callCacheKey<T>(
  call: PromptCall<T>,
  ignore: ReadonlySet<CacheKeyPart>,
  planText: string | undefined,
  mcps: readonly McpKeyPart[],
): CallCacheKey {
  return new KeyOfCall(call, ignore, planText, mcps);
}

/**
 * A class, not an object of closures: a hit builds one per call and uses only `key`. The key
 * input is built only when needed: a hit of a prompt asked before reuses its request text.
 */
class KeyOfCall<T> implements CallCacheKey {
  readonly key: string;
  private keyInput: CacheKeyInput | undefined;
  private partHashes: CacheKeyPartHashes | undefined;

  constructor(
    private readonly call: PromptCall<T>,
    private readonly ignore: ReadonlySet<CacheKeyPart>,
    private readonly planText: string | undefined,
    private readonly mcps: readonly McpKeyPart[],
  ) {
    this.key =
      ignore.size === 0
        ? cacheKeyOfRequest(callRequestText(call, planText, mcps, () => this.input()), call.prompt.data, call.agentName)
        : cacheKeyFromParts(this.parts(), ignore, call.agentName);
  }

  parts(): CacheKeyPartHashes {
    return (this.partHashes ??= cacheKeyPartHashes(this.input(), this.call.plan.systemSections));
  }

  identity(): string {
    return cacheIdentity(this.call.agentName, this.call.prompt.name);
  }

  header(createdAt: number): CacheEntryHeader {
    return entryHeader({
      agent: this.call.agentName,
      prompt: maskedPromptName(this.call.prompt, this.call.secrets),
      identity: this.identity(),
      model: modelKeyOf(this.call),
      parts: this.parts(),
      ignored: this.ignore,
      createdAt,
    });
  }

  private input(): CacheKeyInput {
    return (this.keyInput ??= keyInput(this.call, this.planText, this.mcps));
  }
}

function keyInput<T>(call: PromptCall<T>, planText: string | undefined, mcps: readonly McpKeyPart[]): CacheKeyInput {
  const { plan, settings, prompt } = call;
  return {
    user: prompt.user,
    data: prompt.data,
    system: plan.system,
    model: modelKeyOf(call),
    sampling: {
      maxTokens: plan.maxTokens,
      ...(plan.temperature !== undefined ? { temperature: plan.temperature } : {}),
      ...(plan.stop !== undefined ? { stop: plan.stop } : {}),
    },
    tools: settings.tools.map((tool) => {
      const definition = localHandler(tool).definition;
      return { name: definition.name, description: definition.description ?? '', inputSchema: definition.input_schema };
    }),
    mcps,
    skills: settings.skills.map((skill) => ({ name: skill.name, description: skill.description ?? '', content: skill.content })),
    responseSchema: prompt.responseFormat,
    // Only with a plan file: keys of agents without one are what they were before.
    ...(planText !== undefined ? { plan: planText } : {}),
  };
}
