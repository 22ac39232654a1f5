import { cacheKey } from '../../cache/cache-key.js';
import { loadMcpRuntime } from '../../mcp/load-mcp-runtime.js';
import type { McpServerConfig } from '../../mcp/mcp-config.js';
import { errorMessage } from '../../util/describe.js';
import { ZERO_USAGE } from '../../util/usage.js';
import type { PromptCall, PromptInterceptor } from '../prompt-call.js';
import { localHandler } from '../toolset.js';

/**
 * Answers from the cache when the same request was answered before. The key covers what is
 * actually sent; a stored value that no longer validates against the schema is busted and the
 * model asked again.
 */
export const cacheInterceptor: PromptInterceptor = async (call, next) => {
  const cache = call.cache;
  if (!call.settings.enableCache || cache === undefined || call.onStream !== undefined) return next(call);
  const key = await keyOf(call);
  const stored = await cache.get(key);
  if (stored !== undefined) {
    const checked = call.prompt.responseFormat.safeParse(stored.value);
    if (checked.success) {
      call.tree.emit({ type: 'cacheHit', agentName: call.agentName, key });
      return {
        value: checked.data,
        answerData: stored.value,
        usage: { ...ZERO_USAGE },
        turns: 0,
        stopReason: stored.stopReason,
        model: stored.model,
        cached: true,
        toolCalls: [],
      };
    }
    await cache.bust(key);
  }
  call.tree.emit({ type: 'cacheMiss', agentName: call.agentName, key, reason: stored === undefined ? 'absent' : 'invalid' });
  const outcome = await next(call);
  // A store keeps answers beyond the call (files, a server): an answer quoting a secret is not
  // stored at all. Masked, it would no longer be what the model said, and a hit would return that.
  if (call.secrets.contains(outcome.answerData)) {
    call.tree.workflow?.logger.info(`Answer of agent "${call.agentName}" not cached: it contains a secret value`, { key });
    return outcome;
  }
  // The raw answer, not the parsed value: a hit parses it again, so transforms run exactly once.
  try {
    await cache.set(key, {
      value: outcome.answerData,
      model: outcome.model,
      stopReason: outcome.stopReason,
      usage: outcome.usage,
      storedAt: call.tree.now(),
    });
  } catch (error) {
    // The answer is paid for and valid: a store that cannot keep it is reported, not fatal.
    call.tree.workflow?.logger.warn(`Cache store failed to save the answer of agent "${call.agentName}"`, {
      key,
      error: errorMessage(error),
    });
  }
  return outcome;
};

async function keyOf<T>(call: PromptCall<T>): Promise<string> {
  const { plan, settings, prompt } = call;
  const mcps = settings.mcps.length === 0 ? [] : await mcpKeyParts(settings.mcps);
  return cacheKey(
    {
      user: prompt.user,
      data: prompt.data,
      system: plan.system,
      model: plan.model,
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
    },
    call.agentName,
  );
}

/** Reading in-process servers' tool schemas takes the MCP SDK, so it is loaded only for calls with servers. */
async function mcpKeyParts(servers: readonly McpServerConfig[]): Promise<{ name: string; identity: unknown }[]> {
  const { mcpIdentity } = await loadMcpRuntime();
  return servers.map((server) => ({ name: server.name, identity: mcpIdentity(server) }));
}
