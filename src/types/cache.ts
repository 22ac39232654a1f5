/**
 * The parts a prompt's cache key is built from, each hashed on its own so a miss can say which
 * one changed: `system` (system text and skills), `ancestry` (the `# Why You're Here` section),
 * `guidance` (retry guidance and a parent agent's checkpoint slice), `plan` (the plan file the
 * first request carries), `user`, `data`, `schema`, `model`, `tools` (tools and MCP servers) and
 * `settings` (sampling: maxTokens, temperature, stop).
 */
export type CacheKeyPart =
  | 'system'
  | 'ancestry'
  | 'guidance'
  | 'plan'
  | 'user'
  | 'data'
  | 'schema'
  | 'model'
  | 'tools'
  | 'settings';

/**
 * Why a call was not answered from the cache:
 * - `absent`: no entry under the key (with `differs` when an entry of the same agent and prompt exists);
 * - `expired`: there was one, but its time to live was up (it was removed);
 * - `damaged`: the store held something it could not read as an entry (it was removed);
 * - `invalid`: the entry no longer validated against the prompt's schema (it was busted);
 * - `disabled`: caching is off for this call, though the agent has a `cache` store or `enableCache`
 *   in its own config (agents with neither report nothing);
 * - `bypassed`: caching is on, but this call does not read the cache (`enableCache: { refresh: true }`
 *   reads nothing and stores the fresh answer; `agent.stream()` neither reads nor stores);
 * - `unavailable`: the store could not be read (a cache server down or too slow); a
 *   `cacheStoreError` event says why, and the model was asked.
 */
export type CacheMissReason = 'absent' | 'expired' | 'damaged' | 'invalid' | 'disabled' | 'bypassed' | 'unavailable';

/** What a miss reports, on the `cacheMiss` event and as `AgentResult.cacheMiss`. */
export interface CacheMissInfo {
  readonly reason: CacheMissReason;
  /** The key looked up or written; absent when none was computed (`disabled`, a stream). */
  readonly key?: string;
  /**
   * With `absent`: the parts in which this call's key differs from the newest stored entry of the
   * same agent and prompt (prompt name). A part counted by one and ignored by the other differs
   * too. Absent when the store holds no such entry (or cannot say).
   */
  readonly differs?: readonly CacheKeyPart[];
}
