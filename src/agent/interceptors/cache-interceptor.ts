import type { Cache, CachedResponse, CacheLookup } from '../../cache/cache.js';
import { differingParts } from '../../cache/cache-entry-header.js';
import { cacheOptions, type ResolvedCacheOptions } from '../../cache/cache-options.js';
import type { CacheKeyPart, CacheMissInfo } from '../../types/cache.js';
import { loadMcpRuntime } from '../../mcp/load-mcp-runtime.js';
import type { McpServerConfig } from '../../mcp/mcp-config.js';
import { errorMessage } from '../../util/describe.js';
import { ZERO_USAGE } from '../../util/usage.js';
import { callCacheKey, type CallCacheKey, type McpKeyPart } from '../call-cache-key.js';
import type { PromptCall, PromptHandler, PromptInterceptor, PromptOutcome } from '../prompt-call.js';
import { firstRequestText } from '../turn-pipeline.js';

/**
 * Answers from the cache when the same request was answered before. The key covers what is
 * actually sent; a stored value that no longer validates against the schema is busted and the
 * model asked again. Every call of an agent that caches gets one `cacheHit` or `cacheMiss`, and a
 * miss says why (see CacheMissReason), so a run that stopped hitting can be explained.
 */
export const cacheInterceptor: PromptInterceptor = (call, next) => {
  const options = cacheOptions(call.settings.enableCache);
  const cache = call.cache;
  // Not async itself: a call that does not cache passes straight through, with no promise of its own.
  if (!options.enabled || cache === undefined) {
    return call.cacheConfigured ? missed(call, next, { reason: 'disabled' }) : next(call);
  }
  // Streams bypass the cache (decision 0007): their value is the events, which a cache could not replay.
  if (call.onStream !== undefined) return missed(call, next, { reason: 'bypassed' });
  return throughCache(call, next, options, cache);
};

async function throughCache<T>(
  call: PromptCall<T>,
  next: PromptHandler,
  options: ReturnType<typeof cacheOptions>,
  cache: Cache,
): Promise<PromptOutcome<T>> {
  // Synchronous unless a turn feature keys its first-request text (a plan file to read) or there
  // are MCP servers to describe: each await costs on the hit path.
  const keyed = firstRequestText(call.turnFeatures, call);
  const planText = keyed === undefined ? undefined : await keyed;
  const mcps = call.settings.mcps.length === 0 ? NO_MCPS : await mcpKeyParts(call.settings.mcps);
  const key = callCacheKey(call, options.ignore, planText, mcps);
  if (options.refresh) return stored(call, next, cache, key, { reason: 'bypassed', key: key.key });
  // try/await rather than `.catch(...)`: no extra closure and promise on every hit.
  let found: CacheLookup | ReturnType<typeof unavailable>;
  try {
    found = await lookup(cache, key.key);
  } catch (error) {
    found = unavailable(call, 'lookup', key.key, error);
  }
  if (found.response !== undefined) {
    const checked = call.prompt.responseFormat.safeParse(found.response.value);
    if (checked.success) {
      // Outside a workflow nobody hears of it: the event is not even built.
      if (call.tree.node !== undefined) call.tree.emit({ type: 'cacheHit', agentName: call.agentName, key: key.key });
      return hit(found.response, checked.data);
    }
    await cache.bust(key.key).catch((error: unknown) => unavailable(call, 'bust', key.key, error));
    return stored(call, next, cache, key, { reason: 'invalid', key: key.key });
  }
  const differs = found.reason === 'absent' ? await related(call, cache, key, options) : undefined;
  return stored(call, next, cache, key, { reason: found.reason, key: key.key, ...(differs !== undefined ? { differs } : {}) });
}

const NO_MCPS: readonly McpKeyPart[] = Object.freeze([]);

/**
 * A store without `lookup` (a custom one) cannot say why it missed: every miss is `absent`.
 * Not async: the store's own promise is passed on, without another hop on the hit path.
 */
function lookup(cache: Cache, key: string): Promise<CacheLookup> {
  if (cache.lookup !== undefined) return cache.lookup(key);
  return cache.get(key).then((response) => (response === undefined ? { response: undefined, reason: 'absent' } : { response }));
}

/**
 * A store that failed (its server down, a timeout) costs a miss, never the call: the failure is
 * reported as a `cacheStoreError` event (a warning) and the model is asked.
 */
function unavailable<T>(
  call: PromptCall<T>,
  operation: 'lookup' | 'set' | 'bust',
  key: string,
  error: unknown,
): { readonly response: undefined; readonly reason: 'unavailable' } {
  call.tree.emit({ type: 'cacheStoreError', agentName: call.agentName, operation, key, message: errorMessage(error) });
  return { response: undefined, reason: 'unavailable' };
}

/**
 * The parts in which this key differs from the newest entry of the same agent and prompt, or
 * undefined when the store has none (or cannot say). Diagnostics never fail a call.
 */
async function related<T>(
  call: PromptCall<T>,
  cache: Cache,
  key: CallCacheKey,
  options: ResolvedCacheOptions,
): Promise<CacheKeyPart[] | undefined> {
  if (cache.latestEntry === undefined) return undefined;
  try {
    const header = await cache.latestEntry(key.identity());
    return header === undefined ? undefined : differingParts(key.parts(), options.ignore, header);
  } catch (error) {
    call.tree.workflow?.logger.debug(`Cache store could not look up related entries for agent "${call.agentName}"`, {
      error: errorMessage(error),
    });
    return undefined;
  }
}

function hit<T>(response: CachedResponse, value: T): PromptOutcome<T> {
  return {
    value,
    answerData: response.value,
    usage: { ...ZERO_USAGE },
    turns: 0,
    stopReason: response.stopReason,
    model: response.model,
    cached: true,
    toolCalls: [],
  };
}

/** A miss that stores nothing: reported, then the model is asked. */
async function missed<T>(call: PromptCall<T>, next: PromptHandler, miss: CacheMissInfo): Promise<PromptOutcome<T>> {
  call.tree.emit({ type: 'cacheMiss', agentName: call.agentName, ...miss });
  return { ...(await next(call)), cacheMiss: miss };
}

/** A miss whose answer is stored under the key, with the entry's header. */
async function stored<T>(
  call: PromptCall<T>,
  next: PromptHandler,
  cache: Cache,
  key: CallCacheKey,
  miss: CacheMissInfo,
): Promise<PromptOutcome<T>> {
  call.tree.emit({ type: 'cacheMiss', agentName: call.agentName, ...miss });
  const outcome = { ...(await next(call)), cacheMiss: miss };
  // A store keeps answers beyond the call (files, a server): an answer quoting a secret is not
  // stored at all. Masked, it would no longer be what the model said, and a hit would return that.
  if (call.secrets.contains(outcome.answerData)) {
    call.tree.workflow?.logger.info(`Answer of agent "${call.agentName}" not cached: it contains a secret value`, { key: key.key });
    return outcome;
  }
  const storedAt = call.tree.now();
  // The raw answer, not the parsed value: a hit parses it again, so transforms run exactly once.
  try {
    await cache.set(
      key.key,
      { value: outcome.answerData, model: outcome.model, stopReason: outcome.stopReason, usage: outcome.usage, storedAt },
      { header: key.header(storedAt) },
    );
  } catch (error) {
    // The answer is paid for and valid: a store that cannot keep it is reported, not fatal.
    unavailable(call, 'set', key.key, error);
    call.tree.workflow?.logger.warn(`Cache store failed to save the answer of agent "${call.agentName}"`, {
      key: key.key,
      error: errorMessage(error),
    });
  }
  return outcome;
}

/** Reading in-process servers' tool schemas takes the MCP SDK, so it is loaded only for calls with servers. */
async function mcpKeyParts(servers: readonly McpServerConfig[]): Promise<McpKeyPart[]> {
  const { mcpIdentity } = await loadMcpRuntime(servers.map((server) => server.name));
  return servers.map((server) => ({ name: server.name, identity: mcpIdentity(server) }));
}
