// Lua run by Redis: each script is one atomic step, so another process never sees an entry
// without its index, and a removal never takes an entry written after it was read. Sent by hash
// (EVALSHA) once Redis has it; see RedisScriptRunner.
import { createHash } from 'node:crypto';

/** A Lua script and its SHA-1, the name Redis knows it by once loaded. */
export interface RedisScript {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source, 'utf8').digest('hex') };
}

/**
 * KEYS: the entry, then its identity's index (the entry again when it has no header).
 * ARGV: the entry text, its expiry in ms ('' for none), the cache key for the index ('' for none).
 */
export const SET_ENTRY = script(`
if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
if ARGV[3] ~= '' then
  if ARGV[2] == '' then redis.call('SET', KEYS[2], ARGV[3]) else redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2]) end
end
return 1
`);

/**
 * Compare-and-delete for several entries. KEYS in pairs: an entry, its identity's index (the
 * entry again when it has none). ARGV in pairs: the SHA-1 of the entry text that was read, the
 * cache key. An entry is removed only if it still holds that text, and its index only if it still
 * names it. Returns 1 or 0 per entry.
 */
export const REMOVE_IF_UNCHANGED = script(`
local out = {}
for i = 1, #KEYS, 2 do
  local text = redis.pcall('GET', KEYS[i])
  if type(text) == 'string' and redis.sha1hex(text) == ARGV[i] then
    redis.call('UNLINK', KEYS[i])
    if KEYS[i + 1] ~= KEYS[i] and redis.pcall('GET', KEYS[i + 1]) == ARGV[i + 1] then redis.call('UNLINK', KEYS[i + 1]) end
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
`);
